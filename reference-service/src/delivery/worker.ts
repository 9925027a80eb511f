import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { GuardedClient } from '../outbound/guarded-client.js';
import type { Db } from '../store/db.js';
import {
  abandonStaleDeliveries,
  type ClaimedDelivery,
  claimDeliveries,
  recordAttempt,
} from '../store/queries/deliveries-claim.js';
import { DELIVERY_CHANNEL } from '../store/queries/events.js';
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
  /** Polling fallback for missed notifications. */
  pollIntervalMs?: number;
  /**
   * How long a claimed row may stay `sending` before the sweeper abandons it. Must exceed the outbound
   * total timeout, or a slow but live attempt would be abandoned (it is then never logged as delivered).
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
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, secretBox, client, logger } = options;
  const now = options.now ?? (() => Date.now());
  const concurrency = options.concurrency ?? 64;
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const leaseMs = options.leaseMs ?? 60_000;
  const refillAt = Math.max(1, Math.floor(concurrency / 4));
  const id = `wkr_${randomBytes(8).toString('hex')}`;
  const log = logger.child({ worker: id });

  const successes = createSuccessLog(db);
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

  function secretsOf(row: ClaimedDelivery, at: number): string[] {
    const secrets = [secretBox.open(row.secret_enc!, row.endpoint_id)];
    if (row.previous_secret_enc !== null && row.rotating_until !== null && row.rotating_until > at) {
      secrets.push(secretBox.open(row.previous_secret_enc, row.endpoint_id));
    }
    return secrets;
  }

  async function attempt(row: ClaimedDelivery): Promise<void> {
    const at = now();
    const headers = deliveryHeaders({
      deliveryId: row.id,
      eventId: row.event_id,
      eventType: row.event_type,
      body: row.body,
      secrets: secretsOf(row, at),
      timestamp: Math.floor(at / 1000),
    });
    const outcome = await client.post(row.url, headers, row.body);
    const ok = outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300;
    if (ok) {
      await successes.record({
        deliveryId: row.id,
        httpStatus: outcome.status,
        latencyMs: outcome.latencyMs,
        excerpt: outcome.excerpt,
      });
      return;
    }
    const paused = await recordAttempt(
      db,
      {
        deliveryId: row.id,
        ok: false,
        httpStatus: outcome.kind === 'answered' ? outcome.status : null,
        latencyMs: outcome.latencyMs,
        excerpt: outcome.kind === 'answered' ? outcome.excerpt : `not delivered: ${outcome.reason}`,
      },
      now(),
    );
    if (outcome.kind === 'blocked') {
      log.warn(
        { delivery_id: row.id, endpoint_id: row.endpoint_id, reason: outcome.reason },
        'delivery blocked',
      );
    }
    if (paused) log.warn({ endpoint_id: row.endpoint_id }, 'endpoint paused after consecutive failures');
  }

  function launch(row: ClaimedDelivery): void {
    inFlight++;
    attempt(row)
      .catch((error: unknown) => log.error({ err: error, delivery_id: row.id }, 'delivery attempt failed'))
      .finally(() => {
        inFlight--;
        if (inFlight === 0) idle?.();
        if (!drained) wake();
      });
  }

  async function pump(): Promise<void> {
    pumping = true;
    try {
      do {
        again = false;
        // Each claim is a transaction of several statements: under load, refill a quarter of the slots at
        // a time instead of one slot per finished attempt. An idle worker claims at once.
        while (running && concurrency - inFlight >= (inFlight === 0 ? 1 : refillAt)) {
          const want = concurrency - inFlight;
          const { rows, deferred } = await db.transaction((tx) => claimDeliveries(tx, want, id, now()));
          for (const row of rows) launch(row);
          if (rows.length < want) {
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
      // A claim under way may still launch attempts: let it finish before waiting for those.
      while (pumping || pumpScheduled) await new Promise((resolve) => setTimeout(resolve, 5));
      if (inFlight > 0) await new Promise<void>((resolve) => (idle = resolve));
      await unlisten?.();
    },
  };
}
