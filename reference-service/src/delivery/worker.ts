import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { GuardedClient, PostOutcome } from '../outbound/guarded-client.js';
import type { Relay } from '../relay/relay.js';
import type { Db } from '../store/db.js';
import {
  abandonStaleDeliveries,
  type ClaimCaps,
  claimDeliveries,
} from '../store/queries/deliveries-claim.js';
import { DELIVERY_CHANNEL } from '../store/queries/events.js';
import type { SecretBox } from '../store/secret-box.js';
import { createAttempt } from './attempt.js';
import { ClaimScheduler } from './claim-scheduler.js';
import { DueTimer } from './due-timer.js';
import { type Ready, withSecrets } from './secrets.js';
import { createSuccessLog } from './success-log.js';

/**
 * Attempts in flight at once per endpoint and per workspace across every instance, and per worker: one tenant
 * holds at most a quarter of a worker's sockets (open-choices, "Attempts in flight").
 */
export const DEFAULT_CAPS: ClaimCaps = { endpoint: 32, workspace: 64 };
export const DEFAULT_CONCURRENCY = 256;
/**
 * The most rows one claim dials: on PGlite every tenant's statement waits for a claim, and the first claim
 * after a burst would otherwise update and read the bodies of a whole worker's slots in one statement.
 */
export const CLAIM_BATCH = 64;

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
  concurrency?: number;
  /** Attempts in flight at once per endpoint and per workspace, counted by the claim across instances. */
  caps?: ClaimCaps;
  /** Polling fallback for missed notifications. */
  pollIntervalMs?: number;
  /** A notification's wait for others before it wakes the claim loop (5 ms): events then share a claim. */
  notifyGatherMs?: number;
  /** How long a claimed row may stay `sending` before it is abandoned: above the total timeout. */
  leaseMs?: number;
  /** Abandon every `sending` row at start: right only for the sole user (PGlite's data-dir lock). */
  soleOwner?: boolean;
}

/**
 * Claims pending deliveries and makes exactly one attempt for each: claim committed first, then the
 * signed POST through the guarded client, then the log row and the endpoint's failure run.
 *
 * A worker claims only for its free slots, so a claimed row is dialled at once and a crash loses only
 * attempts that were on the wire. Fairness between tenants is the claim's (it counts what every instance
 * has in flight); the claim loop below only decides when to ask, run one at a time by the `ClaimScheduler`;
 * each attempt is in `attempt.ts`.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions) {
  const { db, secretBox, client, logger } = options;
  const now = options.now ?? (() => Date.now());
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const caps = options.caps ?? DEFAULT_CAPS;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const notifyGatherMs = options.notifyGatherMs ?? 5;
  const leaseMs = options.leaseMs ?? 60_000;
  const id = `wkr_${randomBytes(8).toString('hex')}`;
  const log = logger.child({ worker: id });

  const successes = createSuccessLog(db, log);
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
  });
  // Rows left for their pace are claimed when the first becomes due, not after every attempt.
  const due = new DueTimer(() => wake(), now);
  let running = false;
  let stopped = false;
  // Set when a claim found nothing held back: logged attempts then stop asking until something new arrives.
  let drained = false;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  let timers: NodeJS.Timeout[] = [];
  let gathering: NodeJS.Timeout | undefined;
  let unlisten: (() => Promise<void>) | undefined;

  function launch(claimed: Ready): void {
    inFlight++;
    attempt(claimed)
      .catch((error: unknown) =>
        log.error({ err: error, delivery_id: claimed.row.id }, 'delivery attempt failed'),
      )
      .finally(() => {
        inFlight--;
        if (inFlight === 0) idle?.();
        if (!drained) wake();
      });
  }

  /** Claims for the free slots until they are full or nothing more can be taken now. */
  async function claimUntilFull(): Promise<void> {
    for (;;) {
      const room = concurrency - inFlight;
      if (!running || room < 1) return;
      const limit = Math.min(room, CLAIM_BATCH);
      const claimedAt = now();
      const { rows, heldBack, dueAt, unsettled } = await claimDeliveries(db, {
        limit,
        workerId: id,
        now: claimedAt,
        liveSince: claimedAt - leaseMs,
        caps,
        // Answered, they hold no socket: the claim does not count them, though their log is not written yet.
        answered: successes.unwritten(),
      });
      // Dialled even when the worker stopped meanwhile: `stop` waits for them as for any attempt in flight.
      for (const claimed of withSecrets(secretBox, rows, claimedAt)) launch(claimed);
      if (dueAt !== undefined && running) due.at(dueAt);
      // Short: what was held back waits for room, which an attempt's logged outcome makes (`launch`). Rows
      // left to settle are claimed again at once, a batch per claim: what others sent meanwhile goes first.
      if (rows.length < limit && !unsettled) {
        drained = !heldBack;
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
    async start() {
      if (running) return;
      assert.equal(stopped, false, 'a stopped delivery worker cannot start again');
      const abandoned = await abandonStaleDeliveries(
        db,
        options.soleOwner ? Number.MAX_SAFE_INTEGER : now() - leaseMs,
      );
      if (abandoned > 0)
        log.warn({ abandoned }, 'deliveries interrupted by a crash were abandoned, not re-sent');
      running = true;
      unlisten = await db.listen(DELIVERY_CHANNEL, wakeGathered);
      timers = [
        setInterval(wake, pollIntervalMs),
        setInterval(() => void sweepStale(), Math.max(1_000, Math.floor(leaseMs / 4))),
      ];
      for (const timer of timers) timer.unref();
      wake();
    },
    /** Stops claiming, waits for the attempts in flight, then stops listening. */
    async stop() {
      if (!running) return;
      running = false;
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      due.stop();
      clearTimeout(gathering);
      gathering = undefined;
      // A claim under way may still return rows, dialled at once: let it finish, then wait for them all.
      await scheduler.settled();
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
      await successes.flushed();
      await unlisten?.();
    },
  };
}
