-- What one claim may cost, measured on PGlite with endpoints paused over a backlog (600 endpoints of 250
-- rows each, half due an hour later): under 0024 a claim read about 24,000 pages to settle about 510 rows,
-- 65 ms on an idle machine and up to 180 ms on a loaded one, while every other tenant's statement waited.
-- The walk visits up to 256 endpoints with a row due and 256 without, and each settled endpoint got at
-- least one row, so a claim settled a row of up to 512 endpoints; each such row cost about 47 pages, most
-- of them per endpoint rather than per row: its walk probe and its endpoint and workspace looked up (13),
-- a second probe of the pending index to pick its row (8), the update (16: the row found by its key, then
-- a new version in every index whose predicate it meets) and a probe of `events` for a body it does not
-- need (3).
--
-- Changed from 0024: a claim settles at most 128 rows, from at most 128 of the settled endpoints it
-- visited (the first in its walk; each gets 128 divided among them, at least one), whatever the claim's
-- size; it says `unsettled` when it left any, as before. Only a dialled row's event is read. The rest is
-- 0024's. A claim with nothing to settle reads what it read under 0024.
--
-- Verdicts as in 0024.
CREATE OR REPLACE FUNCTION claim_webhook_deliveries(
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
  verdict text,
  due_at bigint
)
LANGUAGE plpgsql
-- As in 0015: walk the partial indexes rather than read every pending row through a bitmap and sort.
SET enable_bitmapscan = off
-- For the same reason (no statistics, or those of an empty backlog): a session keeps the plan it made while
-- the table was small, and one that read the whole table to find the claimed rows to update went on
-- reading it, history and rows due later included, at every claim as the table grew. Every table the
-- claim reads has an index for what it looks up.
SET enable_seqscan = off
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
  -- The endpoints with pending rows, one index probe each (a loose index scan), with the time their
  -- earliest row is due: from `p_from` (the caller picks it at random) to the end, then from the start, so
  -- that when more endpoints wait than a claim serves, each claim serves a different run of them. The walk
  -- stops at `p_limit` endpoints with a row due now; those with none only pass by, so that a tenant whose
  -- rows all wait for its pace does not stand in another's way, but no more than 256 of them, which bounds
  -- what a claim reads while many tenants wait for their pace.
  pending_endpoints (endpoint_id, due_at, visited, due) AS (
    SELECT f.endpoint_id, f.due_at, 1, (f.due_at <= p_now)::integer
      FROM (
        (SELECT d.endpoint_id, coalesce(d.next_attempt_at, 0) AS due_at FROM webhook_deliveries d
          WHERE d.status = 'pending' AND d.endpoint_id >= p_from
          ORDER BY d.endpoint_id, coalesce(d.next_attempt_at, 0), d.created_at, d.id LIMIT 1)
        UNION ALL
        (SELECT d.endpoint_id, coalesce(d.next_attempt_at, 0) FROM webhook_deliveries d
          WHERE d.status = 'pending'
          ORDER BY d.endpoint_id, coalesce(d.next_attempt_at, 0), d.created_at, d.id LIMIT 1)
        LIMIT 1
      ) f
    UNION ALL
    SELECT f.endpoint_id, f.due_at, w.visited + 1, w.due + (f.due_at <= p_now)::integer
      FROM pending_endpoints w
     CROSS JOIN LATERAL (
       -- From `p_from` on, the next endpoint, else the first one from the start; once past the start, the
       -- next one before `p_from`. Each a range of the index, so an empty one costs a probe.
       (SELECT d.endpoint_id, coalesce(d.next_attempt_at, 0) AS due_at FROM webhook_deliveries d
         WHERE w.endpoint_id >= p_from AND d.status = 'pending' AND d.endpoint_id > w.endpoint_id
         ORDER BY d.endpoint_id, coalesce(d.next_attempt_at, 0), d.created_at, d.id LIMIT 1)
       UNION ALL
       (SELECT d.endpoint_id, coalesce(d.next_attempt_at, 0) FROM webhook_deliveries d
         WHERE d.status = 'pending' AND d.endpoint_id > w.endpoint_id AND d.endpoint_id < p_from
         ORDER BY d.endpoint_id, coalesce(d.next_attempt_at, 0), d.created_at, d.id LIMIT 1)
       UNION ALL
       (SELECT d.endpoint_id, coalesce(d.next_attempt_at, 0) FROM webhook_deliveries d
         WHERE w.endpoint_id >= p_from AND d.status = 'pending' AND d.endpoint_id < p_from
         ORDER BY d.endpoint_id, coalesce(d.next_attempt_at, 0), d.created_at, d.id LIMIT 1)
       LIMIT 1
     ) f
     WHERE w.due < p_limit AND w.visited - w.due < 256
  ),
  -- Each endpoint's fate and room once. A paused or removed endpoint, or a workspace whose webhooks are
  -- off, has its rows settled whatever the caps and the pace say; the others get the room their caps leave.
  fates AS MATERIALIZED (
    SELECT e.id AS endpoint_id, e.workspace_id, e.url, e.secret_enc, e.previous_secret_enc, e.rotating_until,
           pe.due_at, pe.visited,
           CASE WHEN NOT w.webhooks_enabled THEN 'off'
                WHEN e.deleted_at IS NOT NULL OR e.secret_enc IS NULL THEN 'removed'
                WHEN e.status <> 'active' THEN 'paused'
                ELSE 'dial' END AS state,
           CASE WHEN e.consecutive_failures = 0 THEN p_endpoint_cap ELSE 1 END - coalesce(be.n, 0) AS room,
           p_workspace_cap - coalesce(bw.n, 0) AS workspace_room
      FROM pending_endpoints pe
      JOIN webhook_endpoints e ON e.id = pe.endpoint_id
      JOIN workspaces w ON w.id = e.workspace_id
      LEFT JOIN busy be ON be.endpoint_id = e.id
      LEFT JOIN busy_workspaces bw ON bw.workspace_id = e.workspace_id
  ),
  -- Those with rows to take now: the first 128 settled ones in the walk's order, and dialled ones with a row
  -- due and room left. `settle` is each settled endpoint's share of the claim's settling: together they
  -- settle at most 128 rows, which bounds the statement however many endpoints are paused.
  targets AS MATERIALIZED (
    SELECT f.*, count(*) OVER () AS open,
           GREATEST(1, 128 / NULLIF(count(*) FILTER (WHERE f.state <> 'dial') OVER (), 0)) AS settle
      FROM (SELECT f.*, row_number() OVER (PARTITION BY f.state = 'dial' ORDER BY f.visited) AS nth
              FROM fates f) f
     WHERE (f.state <> 'dial' AND f.nth <= 128)
        OR (f.state = 'dial' AND f.due_at <= p_now AND f.room > 0 AND f.workspace_room > 0)
  ),
  -- Each such endpoint's pending rows in the index's order (due now first): a dialled endpoint's only up to
  -- now, no more than its room and its workspace's, nor than its share of the claim, so that one tenant
  -- cannot take a whole claim while others wait. Settled rows share one batch of the claim's size.
  picked AS (
    SELECT r.*, t.state, t.settle FROM targets t
     CROSS JOIN LATERAL (
       SELECT d.id, d.event_id, d.event_type, d.endpoint_id, d.workspace_id, d.created_at
         FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.endpoint_id = t.endpoint_id
          AND coalesce(d.next_attempt_at, 0) <= CASE WHEN t.state = 'dial' THEN p_now
                                                     ELSE 9223372036854775807 END
        ORDER BY coalesce(d.next_attempt_at, 0), d.created_at, d.id
        LIMIT CASE WHEN t.state <> 'dial' THEN t.settle
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
           t.rotating_until, ev.body, v.verdict, NULL::bigint
      FROM verdicts v
      JOIN picked p ON p.id = v.id
      JOIN targets t ON t.endpoint_id = p.endpoint_id
      -- Only an attempt needs the body: a settled row's key is null, which the index is not probed for
      -- (a join condition beside the key was checked after the probe).
      LEFT JOIN events ev ON ev.id = CASE WHEN v.verdict = 'dial' THEN p.event_id END
     ORDER BY p.created_at, p.id
  ) o
  UNION ALL
  -- Only an endpoint or workspace that had a row due counts as held back: one whose rows all wait for
  -- their time would have the caller claim again after every attempt for nothing.
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'capped', NULL
   WHERE EXISTS (SELECT FROM fates f
                  WHERE f.state = 'dial' AND f.due_at <= p_now AND (f.room <= 0 OR f.workspace_room <= 0))
  UNION ALL
  -- A settled endpoint that gave its whole share may have more rows to settle, and one past the first 128
  -- gave none: claim again at once.
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'unsettled', NULL
   WHERE EXISTS (SELECT FROM picked p WHERE p.state <> 'dial'
                  GROUP BY p.endpoint_id, p.settle HAVING count(*) >= p.settle)
      OR (SELECT count(*) FROM fates f WHERE f.state <> 'dial') > 128
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'unvisited', NULL
   WHERE (SELECT max(w.visited - w.due) FROM pending_endpoints w) >= 256
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'later', l.at
    FROM (SELECT min(f.due_at) AS at FROM fates f WHERE f.state = 'dial' AND f.due_at > p_now) l
   WHERE l.at IS NOT NULL;
END
$$;
