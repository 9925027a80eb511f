import { FAILURES_BEFORE_PAUSE, ID_PREFIXES } from '@svc-kit/contract';
import { newId } from '../../domain/ids.js';
import type { NoAnswerReason } from '../../domain/no-answer-reasons.js';
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

/** How many attempts may be in flight at once, counted across every instance by the claim. */
export interface ClaimCaps {
  /** Per endpoint (one while the endpoint is in a failure run). */
  endpoint: number;
  /** Per workspace, all its endpoints together. */
  workspace: number;
}

export interface Claim {
  rows: ClaimedDelivery[];
  /**
   * Rows may be waiting that this claim did not take: an endpoint or workspace was at its cap, rows were
   * left pending for lack of room, or endpoints were left unvisited. Whoever frees room (an attempt logged)
   * should claim again. Rows due later than `now` never set it: no attempt makes them due.
   */
  heldBack: boolean;
  /** The earliest time (`now`'s clock) a row this claim saw but left for its pace becomes due, if any. */
  dueAt: number | undefined;
  /**
   * Rows of paused or removed endpoints (or of a workspace whose webhooks are off) may be left to settle:
   * each claim settles one batch of them, so that no claim is a long statement. Claim again at once.
   */
  unsettled: boolean;
}

/**
 * Claims up to `limit` pending deliveries for one worker, in one statement that commits BEFORE any request
 * is made: the rows are `sending` from then on, so no other worker (of this or another instance) can pick
 * them again, and a crash during the request leaves them `sending` for the sweeper to abandon. A worker asks
 * for no more rows than it has free slots, so every `sending` row is on the wire or being logged.
 *
 * The statement is the database function `claim_webhook_deliveries` (its current definition is migration
 * 0027): one round trip, because a claim is on the delivery path of every event. Claims take turns across
 * instances and count the rows in flight per endpoint and per workspace; those at `caps` are passed over.
 * Each endpoint with pending rows (one index probe each) gives its oldest rows due by `now` (the pace the
 * fan-out wrote in `next_attempt_at`), no more than its room and its share of the claim, and the oldest
 * of those up to `limit` are taken. It also settles the picked rows whose endpoint is no longer dialled
 * (paused or removed: a status of their own, no answer fields; webhooks switched off: deleted), whatever
 * their due time: at most 128 of them in all, whatever `limit` (on PGlite every tenant waits for the
 * statement), `unsettled` when more may be left. `liveSince` is the
 * lease: an older `sending` row belongs to a dead worker and is not counted.
 */
export async function claimDeliveries(
  db: Queryable,
  request: {
    limit: number;
    workerId: string;
    now: number;
    liveSince: number;
    caps: ClaimCaps;
    /** This worker's rows already answered whose outcome is still being logged: no longer in flight. */
    answered: readonly string[];
  },
): Promise<Claim> {
  const { limit, workerId, now, liveSince, caps, answered } = request;
  const picked = await db.query<ClaimedDelivery & { verdict: string; due_at: number | null }>(
    'SELECT * FROM claim_webhook_deliveries($1, $2, $3, $4, $5, $6, $7, $8)',
    // Where the walk over the endpoints with pending rows starts: anywhere, so that past `limit` of them
    // each claim serves another run.
    [
      limit,
      newId(ID_PREFIXES.webhookEndpoint),
      workerId,
      now,
      liveSince,
      caps.endpoint,
      caps.workspace,
      answered,
    ],
  );
  const rows: ClaimedDelivery[] = [];
  let heldBack = false;
  let dueAt: number | undefined;
  let unsettled = false;
  for (const { verdict, due_at, ...row } of picked) {
    if (verdict === 'dial') rows.push(row);
    else if (verdict === 'unsettled') unsettled = true;
    else if (verdict === 'deferred' || verdict === 'capped' || verdict === 'unvisited') heldBack = true;
    else if (verdict === 'later' && due_at !== null) dueAt = due_at;
  }
  // A workspace's share of a claim is bounded: whoever took rows may find more.
  return { rows, heldBack: heldBack || rows.length > 0, dueAt, unsettled };
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
 * sweeper abandoned stays abandoned). `noAnswerReason` is the code of an attempt that got no answer (null
 * otherwise), written by the same statement. Answers whether this attempt paused the endpoint.
 */
export async function recordAttempt(
  db: Queryable,
  result: AttemptResult & { noAnswerReason: NoAnswerReason | null },
  now: number,
): Promise<boolean> {
  const rows = await db.query<{ status: string; endpoint_id: string }>(
    `WITH settled AS (
       UPDATE webhook_deliveries
          SET status = $2, http_status = $3, latency_ms = $4, response_excerpt = $5, next_attempt_at = NULL,
              no_answer_reason = $9
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
      result.noAnswerReason,
    ],
  );
  return !result.ok && rows[0]?.status === 'paused';
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
