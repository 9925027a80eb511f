import type { Queryable } from '../db.js';

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

interface Candidate extends ClaimedDelivery {
  endpoint_status: string;
  consecutive_failures: number;
  deleted_at: number | null;
  webhooks_enabled: boolean;
}

/** Text kept on a row that was never dialled, so the log says why. */
export const NOT_SENT_PAUSED = 'not sent: the endpoint was paused';
export const NOT_SENT_REMOVED = 'not sent: the endpoint was removed';

/**
 * Claims up to `limit` pending deliveries for one worker, in one transaction that commits BEFORE any
 * request is made: the rows are `sending` from then on, so no other worker (of this or another instance)
 * can pick them again, and a crash during the request leaves them `sending` for the sweeper to abandon.
 * `SKIP LOCKED` lets workers of several instances claim side by side without waiting on each other.
 *
 * Rows whose endpoint is no longer dialled are settled here instead: a paused or removed endpoint's row
 * becomes `failed` with an excerpt saying it was not sent; a row whose workspace turned webhooks off is
 * deleted, because the log stays empty while the flag is off.
 *
 * An endpoint in a failure run is dialled one attempt at a time (the others stay pending, `deferred`), so
 * that the attempt recording the 20th failure is the last one made: with attempts in parallel, several
 * could already be on the wire when the pause lands.
 */
export async function claimDeliveries(
  tx: Queryable,
  limit: number,
  workerId: string,
  now: number,
): Promise<{ rows: ClaimedDelivery[]; deferred: number }> {
  // Without statistics (PGlite never analyses; a young PostgreSQL table may not have been yet) the planner
  // takes the backlog for a few rows and reads all of it through a bitmap, then sorts it: 10 ms and more per
  // claim at a 5,000-row backlog, instead of under 1 ms walking the index. The setting ends with the claim.
  await tx.query('SET LOCAL enable_bitmapscan = off');
  const candidates = await tx.query<Candidate>(
    // The oldest pending rows are picked and locked first, alone, in the order of the partial index:
    // joining before the LIMIT would read and sort the whole backlog on every claim.
    `WITH d AS (
       SELECT id, event_id, event_type, endpoint_id, workspace_id, created_at FROM webhook_deliveries
        WHERE status = 'pending'
        ORDER BY created_at, id
        LIMIT $1
        FOR UPDATE SKIP LOCKED
     )
     SELECT d.id, d.event_id, d.event_type, d.endpoint_id, e.url, e.secret_enc, e.previous_secret_enc,
            e.rotating_until, ev.body, e.status AS endpoint_status, e.consecutive_failures, e.deleted_at,
            w.webhooks_enabled
       FROM d
       JOIN webhook_endpoints e ON e.id = d.endpoint_id
       JOIN workspaces w ON w.id = d.workspace_id
       JOIN events ev ON ev.id = d.event_id
      ORDER BY d.created_at, d.id`,
    [limit],
  );
  const failing = [
    ...new Set(candidates.filter((row) => row.consecutive_failures > 0).map((row) => row.endpoint_id)),
  ];
  const busy = new Set(
    failing.length === 0
      ? []
      : (
          await tx.query<{ endpoint_id: string }>(
            `SELECT DISTINCT endpoint_id FROM webhook_deliveries
              WHERE status = 'sending' AND endpoint_id = ANY ($1)`,
            [failing],
          )
        ).map((row) => row.endpoint_id),
  );
  let deferred = 0;
  const dial: ClaimedDelivery[] = [];
  const off: string[] = [];
  const paused: string[] = [];
  const removed: string[] = [];
  for (const row of candidates) {
    if (!row.webhooks_enabled) off.push(row.id);
    else if (row.deleted_at !== null || row.secret_enc === null) removed.push(row.id);
    else if (row.endpoint_status !== 'active') paused.push(row.id);
    else if (row.consecutive_failures > 0 && busy.has(row.endpoint_id)) deferred++;
    else {
      if (row.consecutive_failures > 0) busy.add(row.endpoint_id);
      const {
        endpoint_status: _s,
        consecutive_failures: _f,
        deleted_at: _d,
        webhooks_enabled: _w,
        ...claimed
      } = row;
      dial.push(claimed);
    }
  }
  if (dial.length > 0) {
    await tx.query(
      `UPDATE webhook_deliveries SET status = 'sending', claimed_at = $2, claimed_by = $3 WHERE id = ANY ($1)`,
      [dial.map((row) => row.id), now, workerId],
    );
  }
  if (off.length > 0) await tx.query('DELETE FROM webhook_deliveries WHERE id = ANY ($1)', [off]);
  for (const [ids, excerpt] of [
    [paused, NOT_SENT_PAUSED],
    [removed, NOT_SENT_REMOVED],
  ] as const) {
    if (ids.length === 0) continue;
    await tx.query(
      `UPDATE webhook_deliveries SET status = 'failed', response_excerpt = $2, claimed_at = $3, claimed_by = $4
        WHERE id = ANY ($1)`,
      [ids, excerpt, now, workerId],
    );
  }
  return { rows: dial, deferred };
}

/** Consecutive failures that pause an endpoint (spec part 8). */
export const FAILURES_BEFORE_PAUSE = 20;

export interface AttemptResult {
  deliveryId: string;
  ok: boolean;
  httpStatus: number | null;
  latencyMs: number;
  excerpt: string | null;
}

/**
 * Logs the attempt and keeps the endpoint's failure run, in one statement: a success clears the run, a
 * failure lengthens it and the 20th pauses the endpoint. Only a row still `sending` is settled (one the
 * sweeper abandoned stays abandoned). Answers whether this attempt paused the endpoint.
 */
export async function recordAttempt(db: Queryable, result: AttemptResult, now: number): Promise<boolean> {
  const rows = await db.query<{ status: string }>(
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
      RETURNING e.status`,
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
  return !result.ok && rows[0]?.status === 'paused';
}

/**
 * Logs many successful attempts in one statement (the worker's hot path): each row still `sending`
 * becomes `delivered`, and the endpoints among them that had a failure run get it cleared, as
 * `recordAttempt` does for one success. Failures are never batched: each may pause its endpoint.
 */
export async function recordSuccesses(
  db: Queryable,
  results: readonly Omit<AttemptResult, 'ok'>[],
): Promise<void> {
  if (results.length === 0) return;
  await db.query(
    `WITH outcome AS (
       SELECT * FROM unnest($1::text[], $2::integer[], $3::double precision[], $4::text[])
         AS o(id, http_status, latency_ms, excerpt)
     ),
     settled AS (
       UPDATE webhook_deliveries d
          SET status = 'delivered', http_status = o.http_status, latency_ms = o.latency_ms,
              response_excerpt = o.excerpt, next_attempt_at = NULL
         FROM outcome o
        WHERE d.id = o.id AND d.status = 'sending'
        RETURNING d.endpoint_id
     )
     UPDATE webhook_endpoints e
        SET consecutive_failures = 0
      WHERE e.id IN (SELECT endpoint_id FROM settled)
        AND e.deleted_at IS NULL
        AND e.status = 'active'
        AND e.consecutive_failures <> 0`,
    [
      results.map((r) => r.deliveryId),
      results.map((r) => r.httpStatus),
      results.map((r) => r.latencyMs),
      results.map((r) => r.excerpt),
    ],
  );
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
