import {
  DELIVERIES_PER_HOST,
  DELIVERIES_PER_WORKSPACE,
  HOST_PACE_PREFIX,
  WORKSPACE_PACE_PREFIX,
} from '../../domain/delivery-limits.js';
import { SANDBOX_WORKSPACE_ID } from '../../domain/sandbox-workspace.js';

/**
 * The statement that records events some endpoint takes (`$1`..`$6`, one array per column; `$16`, the one
 * endpoint an event is for, or NULL), their outbox rows and the wake-up (`$7`), paced (`$8`: the time the
 * buckets are read at, the latest event's).
 *
 * Fan-out: one `pending` delivery per endpoint of the workspace that is live, `active`, created no later
 * than the event, and whose filter is empty or names the type, only while the workspace's
 * `webhooks_enabled` flag is on; an event for one endpoint (the sandbox's test event) only to that one.
 *
 * Pace (domain/delivery-limits.ts), in the order of the events: every row takes a token of its
 * workspace's bucket (the seeded sandbox's excepted); a row its workspace lets go at once then takes a
 * token of its host's bucket (none for relay listeners and local receivers). A bucket may go below zero:
 * the row that takes it there is due once the bucket has refilled to it, and `next_attempt_at` says when
 * (NULL for a row due at once): the claim (migration 0023) dials no row before then. A row its own
 * workspace holds back does not take from the host's bucket: a tenant's backlog delays its own
 * deliveries, never another tenant's to the same host. Nothing is dropped, and the buckets are rows of
 * `outbound_budgets`, so two instances fanning out at once queue behind each other's rows. Workspaces' buckets are taken before hosts', each kind in the order of the
 * names, so two statements that share buckets never wait on each other in a cycle. The proposed row of
 * an upsert holds capacity - n, so that an existing bucket's take is read back from it.
 * Data-modifying CTEs all run to completion whether or not the final SELECT reads them.
 */
export const FAN_OUT = `WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[],
                         $16::text[])
      AS i(id, workspace_id, identity, type, body, created_at, only_endpoint)
  ),
  fanned AS MATERIALIZED (
    -- The id is a digest of the event and the endpoint (migration 0017): the primary key is the once rule.
    SELECT webhook_delivery_id(i.id, e.id) AS id, e.workspace_id, e.id AS endpoint_id, i.id AS event_id,
           i.type, i.created_at, e.host,
           CASE WHEN e.workspace_id <> $9 THEN
             row_number() OVER (PARTITION BY e.workspace_id ORDER BY i.created_at, i.id, e.id) END AS in_workspace
      FROM input i
      JOIN webhook_endpoints e ON e.workspace_id = i.workspace_id
      JOIN workspaces w ON w.id = e.workspace_id
     WHERE w.webhooks_enabled
       AND e.deleted_at IS NULL
       AND e.status = 'active'
       AND e.created_at <= i.created_at
       AND (cardinality(e.events) = 0 OR i.type = ANY (e.events))
       AND (i.only_endpoint IS NULL OR e.id = i.only_endpoint)
  ),
  written AS (
    -- An event is read only through its delivery rows (the claim, the log): one no endpoint takes is not kept
    INSERT INTO events (id, workspace_id, identity, type, body, created_at)
    SELECT id, workspace_id, identity, type, body, created_at FROM input
     WHERE id IN (SELECT event_id FROM fanned)
  ),
  workspace_wanted AS (
    SELECT $10 || workspace_id AS bucket, max(in_workspace)::float8 AS n
      FROM fanned WHERE in_workspace IS NOT NULL GROUP BY workspace_id
  ),
  workspace_taken AS (
    INSERT INTO outbound_budgets AS b (bucket, tokens, updated_at)
    SELECT bucket, $11::float8 - n, $8::bigint FROM workspace_wanted ORDER BY bucket
    ON CONFLICT (bucket) DO UPDATE
       SET tokens = LEAST($11::float8, b.tokens + GREATEST(0, $8::bigint - b.updated_at) * $12::float8)
                    - ($11::float8 - excluded.tokens),
           updated_at = GREATEST(b.updated_at, $8::bigint)
    RETURNING b.bucket, b.tokens
  ),
  held AS MATERIALIZED (
    -- Each row's wait for its workspace: what the bucket held before this statement against its rank.
    SELECT f.*, (f.in_workspace - (t.tokens + w.n)) / $12::float8 AS workspace_wait,
           CASE WHEN f.host IS NOT NULL AND (t.bucket IS NULL OR f.in_workspace <= t.tokens + w.n) THEN
             row_number() OVER (PARTITION BY f.host,
                                  f.host IS NOT NULL AND (t.bucket IS NULL OR f.in_workspace <= t.tokens + w.n)
                                ORDER BY f.created_at, f.event_id, f.endpoint_id) END AS at_host
      FROM fanned f
      LEFT JOIN workspace_wanted w ON w.bucket = $10 || f.workspace_id AND f.in_workspace IS NOT NULL
      LEFT JOIN workspace_taken t ON t.bucket = w.bucket
  ),
  host_wanted AS (
    SELECT $13 || host AS bucket, max(at_host)::float8 AS n FROM held WHERE at_host IS NOT NULL GROUP BY host
  ),
  host_taken AS (
    INSERT INTO outbound_budgets AS b (bucket, tokens, updated_at)
    SELECT bucket, $14::float8 - n, $8::bigint FROM host_wanted ORDER BY bucket
    ON CONFLICT (bucket) DO UPDATE
       SET tokens = LEAST($14::float8, b.tokens + GREATEST(0, $8::bigint - b.updated_at) * $15::float8)
                    - ($14::float8 - excluded.tokens),
           updated_at = GREATEST(b.updated_at, $8::bigint)
    RETURNING b.bucket, b.tokens
  ),
  outbox AS (
    INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status,
      http_status, latency_ms, response_excerpt, next_attempt_at, created_at)
    SELECT h.id, h.workspace_id, h.endpoint_id, h.event_id, h.type, 1, 'pending', NULL, NULL, NULL,
           CASE WHEN h.wait > 0 THEN $8::bigint + ceil(h.wait)::bigint END, h.created_at
      FROM (
        -- GREATEST skips a NULL: a row no bucket paces waits for nothing.
        SELECT held.*,
               GREATEST(held.workspace_wait, (held.at_host - (t.tokens + w.n)) / $15::float8) AS wait
          FROM held
          LEFT JOIN host_wanted w ON w.bucket = $13 || held.host AND held.at_host IS NOT NULL
          LEFT JOIN host_taken t ON t.bucket = w.bucket
      ) h
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
