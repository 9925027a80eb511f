import { FAILURES_BEFORE_PAUSE, NOT_SENT_PAUSED, NOT_SENT_REMOVED } from '@svc-kit/contract';
import type { Queryable } from '../db.js';
import { announceEndpointsStopped } from './webhook-endpoints.js';

/** What a worker needs to make one attempt, read with the claim. */
export interface ClaimedDelivery {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  url: string;
  secret_enc: string | null;
  previous_secret_enc: string | null;
  rotating_until: number | null;
  body: string;
}

// The texts kept on a row that was never dialled, and the failure run that pauses an endpoint, are the
// contract's: the mock settles its deliveries by the same rules.
export { FAILURES_BEFORE_PAUSE, NOT_SENT_PAUSED, NOT_SENT_REMOVED };

/**
 * Claims up to `limit` pending deliveries for one worker, in one statement that commits BEFORE any request
 * is made: the rows are `sending` from then on, so no other worker (of this or another instance) can pick
 * them again, and a crash during the request leaves them `sending` for the sweeper to abandon.
 * `SKIP LOCKED` lets workers of several instances claim side by side without waiting on each other.
 *
 * The statement is the database function `claim_webhook_deliveries` (its current definition is migration 0015): one round trip, because
 * a claim is on the delivery path of every event. It also settles the picked rows whose endpoint is no
 * longer dialled (paused or removed: `failed` with an excerpt saying so; webhooks switched off: deleted),
 * and hands out one row at a time to an endpoint in a failure run (the others stay pending: `deferred`).
 */
export async function claimDeliveries(
  db: Queryable,
  limit: number,
  workerId: string,
  now: number,
): Promise<{ rows: ClaimedDelivery[]; deferred: number }> {
  const picked = await db.query<ClaimedDelivery & { verdict: string }>(
    'SELECT * FROM claim_webhook_deliveries($1, $2, $3, $4, $5)',
    [limit, workerId, now, NOT_SENT_PAUSED, NOT_SENT_REMOVED],
  );
  const rows: ClaimedDelivery[] = [];
  let deferred = 0;
  for (const { verdict, ...row } of picked) {
    if (verdict === 'dial') rows.push(row);
    else if (verdict === 'deferred') deferred++;
  }
  return { rows, deferred };
}

/**
 * Gives claimed rows that were never dialled back to the queue: `sending` again becomes `pending`. Only this
 * worker's own rows are touched, and only while still `sending` (the sweeper may have abandoned them).
 * The caller must know that no request was made for them: this is what keeps "never re-sent" true.
 * The rows are found by primary key; the status test is written so that the partial index of `sending` rows,
 * which keeps an entry for every row sent since the last vacuum, cannot serve it (as in migration 0015).
 */
export async function releaseDeliveries(
  db: Queryable,
  ids: readonly string[],
  workerId: string,
): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE webhook_deliveries SET status = 'pending', claimed_at = NULL, claimed_by = NULL
      WHERE id = ANY ($1) AND status IS NOT DISTINCT FROM 'sending' AND claimed_by = $2`,
    [ids, workerId],
  );
}

export interface AttemptResult {
  deliveryId: string;
  ok: boolean;
  httpStatus: number | null;
  latencyMs: number | null;
  excerpt: string | null;
}

/**
 * Logs the attempt and keeps the endpoint's failure run, in one statement: a success clears the run, a
 * failure lengthens it and the 20th pauses the endpoint. Only a row still `sending` is settled (one the
 * sweeper abandoned stays abandoned). Answers whether this attempt paused the endpoint.
 */
export async function recordAttempt(db: Queryable, result: AttemptResult, now: number): Promise<boolean> {
  const rows = await db.query<{ status: string; endpoint_id: string }>(
    `WITH settled AS (
       UPDATE webhook_deliveries
          SET status = $2, http_status = $3, latency_ms = $4, response_excerpt = $5, next_attempt_at = NULL
        WHERE id = $1 AND status = 'sending'
        RETURNING endpoint_id
     )
     UPDATE webhook_endpoints e
        SET consecutive_failures = CASE WHEN $6::boolean THEN 0 ELSE e.consecutive_failures + 1 END,
            status = CASE WHEN NOT $6::boolean AND e.consecutive_failures + 1 >= $7::integer
                          THEN 'paused' ELSE e.status END,
            updated_at = CASE WHEN NOT $6::boolean AND e.consecutive_failures + 1 >= $7::integer
                              THEN $8::bigint ELSE e.updated_at END
       FROM settled
      WHERE e.id = settled.endpoint_id
        AND e.deleted_at IS NULL
        AND e.status = 'active'
        -- A success on an endpoint with no failure run changes nothing: skip the write on the hot path.
        AND (NOT $6::boolean OR e.consecutive_failures <> 0)
      RETURNING e.status, e.id AS endpoint_id`,
    [
      result.deliveryId,
      result.ok ? 'delivered' : 'failed',
      result.httpStatus,
      result.latencyMs,
      result.excerpt,
      result.ok,
      FAILURES_BEFORE_PAUSE,
      now,
    ],
  );
  const paused = !result.ok && rows[0]?.status === 'paused';
  // Other workers (of this or another instance) may hold rows of this endpoint claimed ahead.
  if (paused) await announceEndpointsStopped(db, [rows[0]!.endpoint_id]);
  return paused;
}

/**
 * Logs many successful attempts in one statement (the worker's hot path): each row still `sending`
 * becomes `delivered`, and the endpoints among them that had a failure run get it cleared, as
 * `recordAttempt` does for one success. Failures are never batched: each may pause its endpoint. The
 * statement is the database function `record_webhook_successes` (its current definition is migration 0020), whose
 * plan the session keeps, and it finds its rows by primary key only: its cost does not grow with past deliveries.
 */
export async function recordSuccesses(
  db: Queryable,
  results: readonly Omit<AttemptResult, 'ok'>[],
): Promise<void> {
  if (results.length === 0) return;
  await db.query('SELECT record_webhook_successes($1, $2, $3, $4)', [
    results.map((r) => r.deliveryId),
    results.map((r) => r.httpStatus),
    results.map((r) => r.latencyMs),
    results.map((r) => r.excerpt),
  ]);
}

/**
 * Rows left `sending` by a worker that died mid-request become `abandoned`: their outcome is unknown, and
 * sending them again could deliver twice. `claimedBefore` is the lease: no live worker holds a row longer
 * than its request's total timeout.
 */
export async function abandonStaleDeliveries(db: Queryable, claimedBefore: number): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `UPDATE webhook_deliveries SET status = 'abandoned', next_attempt_at = NULL
      WHERE status = 'sending' AND claimed_at < $1
      RETURNING id`,
    [claimedBefore],
  );
  return rows.length;
}
