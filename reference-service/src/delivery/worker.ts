import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { GuardedClient } from '../outbound/guarded-client.js';
import type { Db } from '../store/db.js';
import {
  abandonStaleDeliveries,
  type ClaimedDelivery,
  claimDeliveries,
  recordAttempt,
  releaseDeliveries,
} from '../store/queries/deliveries-claim.js';
import { DELIVERY_CHANNEL } from '../store/queries/events.js';
import { ENDPOINT_STOPPED_CHANNEL } from '../store/queries/webhook-endpoints.js';
import type { SecretBox } from '../store/secret-box.js';
import { deliveryHeaders } from './signing.js';
import { createSuccessLog } from './success-log.js';

export interface DeliveryWorkerOptions {
  db: Db;
  secretBox: SecretBox;
  client: GuardedClient;
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

/** A claimed row waiting for a slot, with its endpoint's secrets already decrypted. */
interface Ready {
  row: ClaimedDelivery;
  claimedAt: number;
  secret: string;
  previousSecret: string | null;
}

/** Whether the endpoint's previous secret still signs at `at`. */
function rotatingAt(row: ClaimedDelivery, at: number): boolean {
  return row.rotating_until !== null && row.rotating_until > at;
}

/**
 * Claims pending deliveries and makes exactly one attempt for each: claim committed first, then the
 * signed POST through the guarded client, then the log row and the endpoint's failure run.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, secretBox, client, logger } = options;
  const now = options.now ?? (() => Date.now());
  const concurrency = options.concurrency ?? 64;
  const prefetch = options.prefetch ?? concurrency * 3;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const leaseMs = options.leaseMs ?? 60_000;
  // Each claim is a round trip and a statement: top up once a quarter of the room is free rather than
  // after every finished attempt.
  const refillAt = Math.max(1, Math.floor((concurrency + prefetch) / 4));
  const id = `wkr_${randomBytes(8).toString('hex')}`;
  const log = logger.child({ worker: id });

  const successes = createSuccessLog(db, log);
  /** Claimed and committed, not dialled yet, oldest first. */
  let ready: Ready[] = [];
  let running = false;
  let pumping = false;
  let pumpScheduled = false;
  let again = false;
  // Set when a claim came back short: finished attempts then stop asking until something new arrives.
  let drained = false;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  let poll: NodeJS.Timeout | undefined;
  let sweep: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let unlistenStopped: (() => Promise<void>) | undefined;

  /**
   * Decrypts each endpoint's secrets once per claimed batch (a batch is mostly a few endpoints' rows) and
   * keeps them only as long as the rows that use them.
   */
  function withSecrets(rows: readonly ClaimedDelivery[], claimedAt: number): Ready[] {
    const opened = new Map<string, Pick<Ready, 'secret' | 'previousSecret'>>();
    return rows.map((row) => {
      let secrets = opened.get(row.endpoint_id);
      if (secrets === undefined) {
        secrets = {
          secret: secretBox.open(row.secret_enc!, row.endpoint_id),
          previousSecret:
            row.previous_secret_enc !== null && rotatingAt(row, claimedAt)
              ? secretBox.open(row.previous_secret_enc, row.endpoint_id)
              : null,
        };
        opened.set(row.endpoint_id, secrets);
      }
      return { row, claimedAt, ...secrets };
    });
  }

  /** The new secret first, then the old one until the rotation's end (spec 6.3), checked again at send. */
  function secretsAt({ row, secret, previousSecret }: Ready, at: number): string[] {
    return previousSecret !== null && rotatingAt(row, at) ? [secret, previousSecret] : [secret];
  }

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
    const held = takeHeld(endpointId);
    if (held.length > 0) void release(held).then(wake);
  }

  /** Takes the endpoint's rows claimed ahead out of the waiting list, for the caller to give back. */
  function takeHeld(endpointId: string): ClaimedDelivery[] {
    const held = ready.filter((claimed) => claimed.row.endpoint_id === endpointId);
    if (held.length > 0) ready = ready.filter((claimed) => claimed.row.endpoint_id !== endpointId);
    return held.map((claimed) => claimed.row);
  }

  async function attempt(claimed: Ready): Promise<void> {
    const { row } = claimed;
    const at = now();
    const headers = deliveryHeaders({
      deliveryId: row.id,
      eventId: row.event_id,
      eventType: row.event_type,
      body: row.body,
      secrets: secretsAt(claimed, at),
      timestamp: Math.floor(at / 1000),
    });
    const outcome = await client.post(row.url, headers, row.body);
    const ok = outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300;
    if (ok) {
      successes.record({
        deliveryId: row.id,
        httpStatus: outcome.status,
        latencyMs: outcome.latencyMs,
        excerpt: outcome.excerpt,
      });
      return;
    }
    // The endpoint is now in a failure run, dialled one attempt at a time: its prefetched rows go back to
    // the queue (never dialled), and later claims hand them out one by one, or settle them if it pauses.
    const held = takeHeld(row.endpoint_id);
    const paused = await recordAttempt(
      db,
      {
        deliveryId: row.id,
        ok: false,
        httpStatus: outcome.kind === 'answered' ? outcome.status : null,
        // The log's fields describe the endpoint's answer; without one they are null, and the reason
        // goes to the service log below.
        latencyMs: outcome.kind === 'answered' ? outcome.latencyMs : null,
        excerpt: outcome.kind === 'answered' ? outcome.excerpt : null,
      },
      now(),
    );
    await release(held);
    if (outcome.kind !== 'answered') {
      log.warn(
        { delivery_id: row.id, endpoint_id: row.endpoint_id, reason: outcome.reason },
        outcome.kind === 'blocked' ? 'delivery blocked' : 'delivery not answered',
      );
    }
    if (paused) log.warn({ endpoint_id: row.endpoint_id }, 'endpoint paused after consecutive failures');
  }

  function dispatch(): void {
    const stale: ClaimedDelivery[] = [];
    // Dialled now, a row claimed before this moment could outlive its lease on the wire and be abandoned
    // by the sweeper mid-attempt: it goes back to the queue instead, never dialled.
    const freshSince = now() - leaseMs / 2;
    while (running && inFlight < concurrency && ready.length > 0) {
      const next = ready.shift()!;
      if (next.claimedAt < freshSince) stale.push(next.row);
      else launch(next);
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

  async function pump(): Promise<void> {
    pumping = true;
    try {
      do {
        again = false;
        // An idle worker claims at once; a busy one once a quarter of the room is free.
        for (;;) {
          const room = concurrency + prefetch - inFlight - ready.length;
          if (!running || room < (inFlight === 0 ? 1 : refillAt)) break;
          const claimedAt = now();
          const { rows, deferred } = await claimDeliveries(db, room, id, claimedAt);
          if (!running) {
            // Stopped during the claim: these rows were never dialled.
            await release(rows);
            break;
          }
          ready.push(...withSecrets(rows, claimedAt));
          dispatch();
          if (rows.length < room) {
            // Deferred rows wait for an attempt in flight: its end must wake us again.
            drained = deferred === 0;
            break;
          }
        }
      } while (again && running);
    } catch (error) {
      if (running) log.error({ err: error }, 'claiming deliveries failed; retrying on the next wake-up');
    } finally {
      pumping = false;
    }
  }

  function wake(): void {
    if (!running) return;
    drained = false;
    if (pumping) {
      again = true;
      return;
    }
    // Attempts finish in groups (their successes are logged together): claim once for the whole group.
    if (pumpScheduled) return;
    pumpScheduled = true;
    setImmediate(() => {
      pumpScheduled = false;
      if (pumping) again = true;
      else void pump();
    });
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
      const abandoned = await abandonStaleDeliveries(
        db,
        options.soleOwner ? Number.MAX_SAFE_INTEGER : now() - leaseMs,
      );
      if (abandoned > 0)
        log.warn({ abandoned }, 'deliveries interrupted by a crash were abandoned, not re-sent');
      running = true;
      unlisten = await db.listen(DELIVERY_CHANNEL, wake);
      unlistenStopped = await db.listen(ENDPOINT_STOPPED_CHANNEL, recall);
      poll = setInterval(wake, pollIntervalMs);
      sweep = setInterval(() => void sweepStale(), Math.max(1_000, Math.floor(leaseMs / 4)));
      poll.unref();
      sweep.unref();
      wake();
    },
    wake,
    async stop() {
      if (!running) return;
      running = false;
      clearInterval(poll);
      clearInterval(sweep);
      // A claim under way may still return rows: let it finish, then give back what was never dialled.
      while (pumping || pumpScheduled) await new Promise((resolve) => setTimeout(resolve, 5));
      const undialled = ready.map((claimed) => claimed.row);
      ready = [];
      await release(undialled);
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
      await successes.flushed();
      await unlisten?.();
      await unlistenStopped?.();
    },
  };
}
