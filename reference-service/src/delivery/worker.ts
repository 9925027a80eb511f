import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { GuardedClient, PostOutcome } from '../outbound/guarded-client.js';
import type { Relay } from '../relay/relay.js';
import type { Db } from '../store/db.js';
import {
  abandonStaleDeliveries,
  type ClaimedDelivery,
  claimDeliveries,
  releaseDeliveries,
} from '../store/queries/deliveries-claim.js';
import { DELIVERY_CHANNEL } from '../store/queries/events.js';
import { ENDPOINT_STOPPED_CHANNEL } from '../store/queries/webhook-endpoints.js';
import type { SecretBox } from '../store/secret-box.js';
import { createAttempt } from './attempt.js';
import { ClaimScheduler } from './claim-scheduler.js';
import { ClaimedQueue, type Ready } from './claimed-queue.js';
import { withSecrets } from './secrets.js';
import { createSuccessLog } from './success-log.js';

export interface DeliveryWorkerOptions {
  db: Db;
  secretBox: SecretBox;
  client: GuardedClient;
  /** Carries deliveries to listener endpoints (`svc-webhooks listen`) over their CLI's stream. */
  relay?: Relay | undefined;
  /** Told every attempt's outcome, dialled or relayed (the metrics count them). */
  onOutcome?: ((outcome: PostOutcome) => void) | undefined;
  logger: Logger;
  now?: () => number;
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /**
   * Rows claimed ahead of free slots (default three times `concurrency`), so that a finished attempt is
   * followed at once by the next instead of by a claim's round trips, and claims come in larger batches.
   * They are `sending` (committed) while they wait; see `leaseMs`.
   */
  prefetch?: number;
  /** Polling fallback for missed notifications. */
  pollIntervalMs?: number;
  /**
   * How long a notification of new events waits for others before it wakes the claim loop (default 5 ms):
   * events committed one request at a time then share a claim instead of each waking one.
   */
  notifyGatherMs?: number;
  /**
   * How long a claimed row may stay `sending` before the sweeper abandons it. Must be at least twice the
   * outbound total timeout: a claimed row waits at most half the lease for a slot (later it goes back to the
   * queue unsent), then its attempt takes at most the total timeout.
   */
  leaseMs?: number;
  /**
   * Abandon every `sending` row at start. Right only when this process is the database's sole user
   * (PGlite: the data-dir lock guarantees it); on shared PostgreSQL only the lease is safe.
   */
  soleOwner?: boolean;
}

export interface DeliveryWorker {
  readonly id: string;
  start(): Promise<void>;
  /** Look for pending deliveries now (also called on every NOTIFY). */
  wake(): void;
  /** Stops claiming, waits for the attempts in flight, then stops listening. */
  stop(): Promise<void>;
}

/**
 * Claims pending deliveries and makes exactly one attempt for each: claim committed first, then the
 * signed POST through the guarded client, then the log row and the endpoint's failure run.
 *
 * Its parts: the claim loop below (how many rows to ask for, when), run one at a time by the
 * `ClaimScheduler`; the rows claimed ahead in a `ClaimedQueue`; each attempt in `attempt.ts`.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, secretBox, client, logger } = options;
  const now = options.now ?? (() => Date.now());
  const concurrency = options.concurrency ?? 64;
  const prefetch = options.prefetch ?? concurrency * 3;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const notifyGatherMs = options.notifyGatherMs ?? 5;
  const leaseMs = options.leaseMs ?? 60_000;
  // Each claim is a round trip and a statement: top up once a quarter of the room is free rather than
  // after every finished attempt.
  const refillAt = Math.max(1, Math.floor((concurrency + prefetch) / 4));
  const id = `wkr_${randomBytes(8).toString('hex')}`;
  const log = logger.child({ worker: id });

  const successes = createSuccessLog(db, log);
  const queue = new ClaimedQueue();
  const scheduler = new ClaimScheduler(claimUntilFull, (error) => {
    if (running) log.error({ err: error }, 'claiming deliveries failed; retrying on the next wake-up');
  });
  const attempt = createAttempt({
    db,
    client,
    relay: options.relay,
    onOutcome: options.onOutcome,
    successes,
    log,
    now,
    takeEndpoint: (endpointId) => queue.takeEndpoint(endpointId),
    release,
  });
  let running = false;
  // Set when a claim came back short: finished attempts then stop asking until something new arrives.
  let drained = false;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  let timers: NodeJS.Timeout[] = [];
  let gathering: NodeJS.Timeout | undefined;
  let unlisteners: (() => Promise<void>)[] = [];

  /** Hands never-dialled rows back to the queue; logged, not thrown: the sweeper settles them otherwise. */
  function release(rows: readonly { id: string }[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    return releaseDeliveries(
      db,
      rows.map((row) => row.id),
      id,
    ).catch((error: unknown) => log.error({ err: error }, 'releasing prefetched deliveries failed'));
  }

  /**
   * An endpoint was paused or removed, or its workspace's webhooks switched off (by anyone, on any
   * instance): its rows claimed ahead go back to the queue, never dialled, and the next claim settles them.
   */
  function recall(endpointId: string): void {
    const held = queue.takeEndpoint(endpointId);
    if (held.length > 0) void release(held).then(wake);
  }

  /** Fills free slots from the queue. */
  function dispatch(): void {
    const stale: ClaimedDelivery[] = [];
    // Dialled now, a row claimed before this moment could outlive its lease on the wire and be abandoned
    // by the sweeper mid-attempt: it goes back to the queue instead, never dialled.
    const freshSince = now() - leaseMs / 2;
    while (running && inFlight < concurrency) {
      const next = queue.take(freshSince, stale);
      if (next === undefined) break;
      launch(next);
    }
    // Back in the queue, they are claimed again (with a fresh lease) by the next claim.
    if (stale.length > 0) void release(stale).then(wake);
  }

  function launch(claimed: Ready): void {
    inFlight++;
    attempt(claimed)
      .catch((error: unknown) =>
        log.error({ err: error, delivery_id: claimed.row.id }, 'delivery attempt failed'),
      )
      .finally(() => {
        inFlight--;
        dispatch();
        if (inFlight === 0) idle?.();
        if (!drained) wake();
      });
  }

  /** Claims until the slots and the queue are full or nothing is left to claim. */
  async function claimUntilFull(): Promise<void> {
    // An idle worker claims at once; a busy one once a quarter of the room is free.
    for (;;) {
      const room = concurrency + prefetch - inFlight - queue.size;
      if (!running || room < (inFlight === 0 ? 1 : refillAt)) return;
      const claimedAt = now();
      const { rows, deferred } = await claimDeliveries(db, room, id, claimedAt);
      if (!running) {
        // Stopped during the claim: these rows were never dialled.
        await release(rows);
        return;
      }
      queue.add(withSecrets(secretBox, rows, claimedAt));
      dispatch();
      if (rows.length < room) {
        // Deferred rows wait for an attempt in flight: its end must wake us again.
        drained = deferred === 0;
        return;
      }
    }
  }

  function wake(): void {
    if (!running) return;
    drained = false;
    scheduler.wake();
  }

  /** A notification of new events: one wake-up for all that arrive within `notifyGatherMs`. */
  function wakeGathered(): void {
    if (gathering !== undefined) return;
    gathering = setTimeout(() => {
      gathering = undefined;
      wake();
    }, notifyGatherMs);
  }

  async function sweepStale(): Promise<void> {
    try {
      const abandoned = await abandonStaleDeliveries(db, now() - leaseMs);
      if (abandoned > 0)
        log.warn({ abandoned }, 'deliveries left sending by a stopped worker were abandoned');
    } catch (error) {
      if (running) log.error({ err: error }, 'sweeping stale deliveries failed');
    }
  }

  return {
    id,
    async start() {
      if (running) return;
      assert.equal(queue.mode, 'open', 'a stopped delivery worker cannot start again');
      const abandoned = await abandonStaleDeliveries(
        db,
        options.soleOwner ? Number.MAX_SAFE_INTEGER : now() - leaseMs,
      );
      if (abandoned > 0)
        log.warn({ abandoned }, 'deliveries interrupted by a crash were abandoned, not re-sent');
      running = true;
      unlisteners = [
        await db.listen(DELIVERY_CHANNEL, wakeGathered),
        await db.listen(ENDPOINT_STOPPED_CHANNEL, recall),
      ];
      timers = [
        setInterval(wake, pollIntervalMs),
        setInterval(() => void sweepStale(), Math.max(1_000, Math.floor(leaseMs / 4))),
      ];
      for (const timer of timers) timer.unref();
      wake();
    },
    wake,
    async stop() {
      if (!running) return;
      running = false;
      for (const timer of timers) clearInterval(timer);
      clearTimeout(gathering);
      gathering = undefined;
      // A claim under way may still return rows: let it finish, then give back what was never dialled.
      await scheduler.settled();
      await release(queue.release());
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
      await successes.flushed();
      for (const unlisten of unlisteners) await unlisten();
    },
  };
}
