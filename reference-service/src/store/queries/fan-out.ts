import {
  DELIVERIES_PER_HOST,
  DELIVERIES_PER_WORKSPACE,
  HOST_PACE_PREFIX,
  WORKSPACE_PACE_PREFIX,
} from '../../domain/delivery-limits.js';
import { SANDBOX_WORKSPACE_ID } from '../../domain/sandbox-workspace.js';

/**
 * The statement that records events (`$1`..`$6`, one array per column), their outbox rows and the wake-up
 * (`$7`), paced (`$8`: the time the buckets are read at, the latest event's).
 *
 * Fan-out: one `pending` delivery per endpoint of the workspace that is live, `active`, created no later
 * than the event, and whose filter is empty or names the type, only while the workspace's
 * `webhooks_enabled` flag is on.
 *
 * Pace (domain/delivery-limits.ts): the rows take tokens of their workspace's bucket (the seeded sandbox's
 * excepted) and of their host's bucket (none for relay listeners and local receivers), in the order of
 * the events. A bucket may go below zero: the row that takes it there is due once the bucket has refilled
 * to it, and `next_attempt_at` says when (NULL for a row due at once). Nothing is dropped, and the buckets
 * are rows of `outbound_budgets`, so two instances fanning out at once queue behind each other's rows.
 * Data-modifying CTEs all run to completion whether or not the final SELECT reads them.
 */
export const FAN_OUT = `WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])
      AS i(id, workspace_id, identity, type, body, created_at)
  ),
  written AS (
    INSERT INTO events (id, workspace_id, identity, type, body, created_at)
    SELECT id, workspace_id, identity, type, body, created_at FROM input
  ),
  fanned AS MATERIALIZED (
    -- The id is a digest of the event and the endpoint (migration 0017): the primary key is the once rule.
    SELECT webhook_delivery_id(i.id, e.id) AS id, e.workspace_id, e.id AS endpoint_id, i.id AS event_id,
           i.type, i.created_at, e.host,
           CASE WHEN e.workspace_id <> $9 THEN
             row_number() OVER (PARTITION BY e.workspace_id ORDER BY i.created_at, i.id, e.id) END AS in_workspace,
           CASE WHEN e.host IS NOT NULL THEN
             row_number() OVER (PARTITION BY e.host ORDER BY i.created_at, i.id, e.id) END AS at_host
      FROM input i
      JOIN webhook_endpoints e ON e.workspace_id = i.workspace_id
      JOIN workspaces w ON w.id = e.workspace_id
     WHERE w.webhooks_enabled
       AND e.deleted_at IS NULL
       AND e.status = 'active'
       AND e.created_at <= i.created_at
       AND (cardinality(e.events) = 0 OR i.type = ANY (e.events))
  ),
  wanted AS (
    SELECT $10 || workspace_id AS bucket, max(in_workspace)::float8 AS n, $11::float8 AS capacity,
           $12::float8 AS per_ms
      FROM fanned WHERE in_workspace IS NOT NULL GROUP BY workspace_id
    UNION ALL
    SELECT $13 || host, max(at_host)::float8, $14::float8, $15::float8
      FROM fanned WHERE at_host IS NOT NULL GROUP BY host
  ),
  -- The proposed row holds capacity - n, so an existing bucket's take is read back from it; the kind of
  -- bucket is in its name (an upsert's SET sees only the row and the proposed one). Buckets are taken in
  -- the order of their names, so two statements that share some never wait on each other in a cycle.
  taken AS (
    INSERT INTO outbound_budgets AS b (bucket, tokens, updated_at)
    SELECT bucket, capacity - n, $8::bigint FROM wanted ORDER BY bucket
    ON CONFLICT (bucket) DO UPDATE
       SET tokens = LEAST(CASE WHEN starts_with(b.bucket, $13) THEN $14::float8 ELSE $11::float8 END,
                          b.tokens + GREATEST(0, $8::bigint - b.updated_at)
                                     * CASE WHEN starts_with(b.bucket, $13) THEN $15::float8 ELSE $12::float8 END)
                    - (CASE WHEN starts_with(b.bucket, $13) THEN $14::float8 ELSE $11::float8 END - excluded.tokens),
           updated_at = GREATEST(b.updated_at, $8::bigint)
    RETURNING b.bucket, b.tokens
  ),
  budget AS (
    -- What each bucket held before this statement's rows took from it.
    SELECT w.bucket, t.tokens + w.n AS before, w.per_ms FROM wanted w JOIN taken t ON t.bucket = w.bucket
  ),
  outbox AS (
    INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status,
      http_status, latency_ms, response_excerpt, next_attempt_at, created_at)
    SELECT f.id, f.workspace_id, f.endpoint_id, f.event_id, f.type, 1, 'pending', NULL, NULL, NULL,
           CASE WHEN f.wait > 0 THEN $8::bigint + ceil(f.wait)::bigint END,
           f.created_at
      FROM (
        -- GREATEST skips a NULL: a row no bucket paces waits for nothing.
        SELECT f.*, GREATEST((f.in_workspace - pw.before) / pw.per_ms, (f.at_host - ph.before) / ph.per_ms) AS wait
          FROM fanned f
          LEFT JOIN budget pw ON pw.bucket = $10 || f.workspace_id
          LEFT JOIN budget ph ON ph.bucket = $13 || f.host
      ) f
    RETURNING 1
  )
  SELECT pg_notify($7, '') FROM (SELECT 1 FROM outbox LIMIT 1) AS any_row`;

/** The parameters after the events' columns and the channel: `$8` on. */
export function fanOutParams(now: number): unknown[] {
  return [
    now,
    SANDBOX_WORKSPACE_ID,
    WORKSPACE_PACE_PREFIX,
    DELIVERIES_PER_WORKSPACE.capacity,
    DELIVERIES_PER_WORKSPACE.perMs,
    HOST_PACE_PREFIX,
    DELIVERIES_PER_HOST.capacity,
    DELIVERIES_PER_HOST.perMs,
  ];
}
