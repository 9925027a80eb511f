-- Issue 40 (items 3 and 7) and issue 42.
--
-- A worker now claims only as many rows as it has free slots, so a `sending` row is an attempt on the wire
-- (or one whose outcome is being logged): a crash leaves nothing claimed ahead to abandon, and the claim can
-- count what is in flight. It counts, across every instance, the `sending` rows of each endpoint and each
-- workspace, leaves out those at their cap, and hands each of the rest at most the room it has left, so that
-- one tenant's slow receiver holds a bounded share of the slots and the others' rows are reached at once.
--
-- A row never dialled because its endpoint was paused or removed is recorded with a status of its own and no
-- answer fields: `response_excerpt` is the endpoint's answer (spec 2.3), so the service's own words do not
-- belong there. Rows settled so before this migration are rewritten the same way.

ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status;
UPDATE webhook_deliveries
   SET status = CASE response_excerpt WHEN 'not sent: the endpoint was paused' THEN 'not_sent_paused'
                                      ELSE 'not_sent_removed' END,
       response_excerpt = NULL
 WHERE status = 'failed' AND http_status IS NULL
   AND response_excerpt IN ('not sent: the endpoint was paused', 'not sent: the endpoint was removed');
ALTER TABLE webhook_deliveries
  ADD CONSTRAINT webhook_deliveries_status
  CHECK (status IN ('pending', 'sending', 'delivered', 'failed', 'abandoned', 'not_sent_paused',
                    'not_sent_removed'));

-- Pending rows by endpoint, oldest first within each: the claim walks the endpoints that have pending rows
-- (one probe each), passes over those at their cap without reading their rows, and takes a bounded share
-- from each of the others, instead of the oldest rows of all, which a flood of one tenant would fill. The
-- same entries as before, so a delivery's writes cost the same.
DROP INDEX webhook_deliveries_pending;
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, created_at, id)
  WHERE status = 'pending';

DROP FUNCTION claim_webhook_deliveries(integer, text, bigint, text, text);

-- Verdicts: `dial` (now `sending`, with what the attempt needs), `deferred` (left pending: its endpoint had
-- no room left in this claim), `paused` / `removed` (settled unsent), `off` (deleted: the workspace's
-- webhooks are off). One more row, with only `verdict` = `capped`, says that some endpoint or workspace was
-- passed over at its cap: the caller claims again once an attempt of its own has been logged.
CREATE FUNCTION claim_webhook_deliveries(
  p_limit integer,
  p_from text,
  p_worker text,
  p_now bigint,
  p_live_since bigint,
  p_endpoint_cap integer,
  p_workspace_cap integer,
  p_answered text[]
)
RETURNS TABLE (
  id text,
  event_id text,
  event_type text,
  endpoint_id text,
  url text,
  secret_enc text,
  previous_secret_enc text,
  rotating_until bigint,
  body text,
  verdict text
)
LANGUAGE plpgsql
-- As in 0015: walk the partial indexes rather than read every pending row through a bitmap and sort.
SET enable_bitmapscan = off
AS $$
#variable_conflict use_column
BEGIN
  -- Claims from every instance take turns, so each counts the rows the one before it committed and the caps
  -- hold exactly. A claim is one short statement; the lock ends with its transaction.
  PERFORM pg_advisory_xact_lock(727021);
  RETURN QUERY
  WITH RECURSIVE busy AS MATERIALIZED (
    -- What is in flight, by endpoint. Not a row older than the lease (its worker died, and the sweeper is
    -- about to abandon it), nor one the caller already has an answer for (its log is being written).
    SELECT s.workspace_id, s.endpoint_id, count(*)::integer AS n
      FROM webhook_deliveries s
     WHERE s.status = 'sending' AND s.claimed_at >= p_live_since AND s.id <> ALL (p_answered)
     GROUP BY s.workspace_id, s.endpoint_id
  ),
  busy_workspaces AS MATERIALIZED (
    SELECT b.workspace_id, sum(b.n)::integer AS n FROM busy b GROUP BY b.workspace_id
  ),
  -- An endpoint in a failure run is dialled one attempt at a time, so that the attempt recording the 20th
  -- failure is the last one made: its cap is one.
  busy_endpoints AS MATERIALIZED (
    SELECT b.endpoint_id, b.n,
           b.n >= CASE WHEN e.consecutive_failures = 0 THEN p_endpoint_cap ELSE 1 END AS full
      FROM busy b JOIN webhook_endpoints e ON e.id = b.endpoint_id
  ),
  -- The endpoints with pending rows, one index probe each (a loose index scan), at most `p_limit` of them:
  -- from `p_from` (the caller picks it at random) to the end, then from the start, so that when more than
  -- `p_limit` endpoints wait, each claim serves a different run of them.
  pending_endpoints (endpoint_id, n) AS (
    SELECT coalesce(
             (SELECT d.endpoint_id FROM webhook_deliveries d
               WHERE d.status = 'pending' AND d.endpoint_id >= p_from ORDER BY d.endpoint_id LIMIT 1),
             (SELECT d.endpoint_id FROM webhook_deliveries d
               WHERE d.status = 'pending' ORDER BY d.endpoint_id LIMIT 1)),
           1
    UNION ALL
    SELECT CASE WHEN w.endpoint_id >= p_from
                THEN coalesce(
                       (SELECT d.endpoint_id FROM webhook_deliveries d
                         WHERE d.status = 'pending' AND d.endpoint_id > w.endpoint_id
                         ORDER BY d.endpoint_id LIMIT 1),
                       (SELECT d.endpoint_id FROM webhook_deliveries d
                         WHERE d.status = 'pending' AND d.endpoint_id < p_from
                         ORDER BY d.endpoint_id LIMIT 1))
                ELSE (SELECT d.endpoint_id FROM webhook_deliveries d
                       WHERE d.status = 'pending' AND d.endpoint_id > w.endpoint_id
                         AND d.endpoint_id < p_from
                       ORDER BY d.endpoint_id LIMIT 1) END,
           w.n + 1
      FROM pending_endpoints w
     WHERE w.endpoint_id IS NOT NULL AND w.n < p_limit
  ),
  -- Each endpoint's fate and room once. A paused or removed endpoint, or a workspace whose webhooks are
  -- off, has its rows settled whatever the caps say; the others get the room their caps leave.
  targets AS MATERIALIZED (
    SELECT t.*, count(*) OVER () AS open FROM (
      SELECT e.id AS endpoint_id, e.workspace_id, e.url, e.secret_enc, e.previous_secret_enc, e.rotating_until,
             CASE WHEN NOT w.webhooks_enabled THEN 'off'
                  WHEN e.deleted_at IS NOT NULL OR e.secret_enc IS NULL THEN 'removed'
                  WHEN e.status <> 'active' THEN 'paused'
                  ELSE 'dial' END AS state,
             CASE WHEN e.consecutive_failures = 0 THEN p_endpoint_cap ELSE 1 END - coalesce(be.n, 0) AS room,
             p_workspace_cap - coalesce(bw.n, 0) AS workspace_room
        FROM pending_endpoints pe
        JOIN webhook_endpoints e ON e.id = pe.endpoint_id
        JOIN workspaces w ON w.id = e.workspace_id
        LEFT JOIN busy_endpoints be ON be.endpoint_id = e.id
        LEFT JOIN busy_workspaces bw ON bw.workspace_id = e.workspace_id
    ) t
     WHERE t.state <> 'dial' OR (t.room > 0 AND t.workspace_room > 0)
  ),
  -- Each such endpoint's oldest pending rows: no more than its room and its workspace's, nor than its share
  -- of the claim, so that one tenant cannot take a whole claim while others wait. Settled rows go in
  -- batches of the claim's size.
  picked AS (
    SELECT r.*, t.state FROM targets t
     CROSS JOIN LATERAL (
       SELECT d.id, d.event_id, d.event_type, d.endpoint_id, d.workspace_id, d.created_at
         FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.endpoint_id = t.endpoint_id
        ORDER BY d.created_at, d.id
        LIMIT CASE WHEN t.state <> 'dial' THEN p_limit
                   ELSE LEAST(t.room, t.workspace_room, GREATEST(1, p_limit / t.open)) END
        FOR UPDATE SKIP LOCKED
     ) r
  ),
  -- A workspace's endpoints together stay within its room; then the oldest rows up to the limit.
  chosen AS (
    SELECT r.id FROM (
      SELECT p.id, p.created_at,
             row_number() OVER (PARTITION BY p.workspace_id ORDER BY p.created_at, p.id) <= t.workspace_room
               AS has_room
        FROM picked p JOIN targets t ON t.endpoint_id = p.endpoint_id
       WHERE p.state = 'dial'
    ) r
     WHERE r.has_room
     ORDER BY r.created_at, r.id
     LIMIT p_limit
  ),
  verdicts AS (
    SELECT p.id,
           CASE WHEN p.state <> 'dial' THEN p.state
                WHEN p.id IN (SELECT c.id FROM chosen c) THEN 'dial'
                ELSE 'deferred' END AS verdict
      FROM picked p
  ),
  settled AS (
    UPDATE webhook_deliveries d
       SET status = CASE v.verdict WHEN 'dial' THEN 'sending'
                                   WHEN 'paused' THEN 'not_sent_paused'
                                   ELSE 'not_sent_removed' END,
           claimed_at = p_now,
           claimed_by = p_worker
      FROM verdicts v
     WHERE d.id = v.id AND v.verdict IN ('dial', 'paused', 'removed')
  ),
  dropped AS (
    DELETE FROM webhook_deliveries d USING verdicts v WHERE d.id = v.id AND v.verdict = 'off'
  )
  SELECT o.* FROM (
    SELECT p.id, p.event_id, p.event_type, p.endpoint_id, t.url, t.secret_enc, t.previous_secret_enc,
           t.rotating_until, ev.body, v.verdict
      FROM verdicts v
      JOIN picked p ON p.id = v.id
      JOIN targets t ON t.endpoint_id = p.endpoint_id
      -- Only an attempt needs the body.
      LEFT JOIN events ev ON ev.id = p.event_id AND v.verdict = 'dial'
     ORDER BY p.created_at, p.id
  ) o
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'capped'
   WHERE EXISTS (SELECT FROM busy_workspaces w WHERE w.n >= p_workspace_cap)
      OR EXISTS (SELECT FROM busy_endpoints f WHERE f.full);
END
$$;
