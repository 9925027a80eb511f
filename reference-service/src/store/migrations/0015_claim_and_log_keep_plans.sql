-- The claim (0008) and the success log (0007), the same statements, as PL/pgSQL functions. PostgreSQL before 18
-- parses and plans the statement of a SQL function at every call, and on the worker's hot path that was half
-- of the functions' time (perf of the trigger bench on PostgreSQL 15, batches of a few rows). PL/pgSQL keeps
-- each statement's plan for the session, as PostgreSQL 18 (PGlite) already did for the SQL functions, so both
-- backends now plan alike. The SET clauses stay: 0007 and 0008 say what they guard against.
-- `use_column`: a bare name in the statements is a column, never one of the functions' output names.
CREATE OR REPLACE FUNCTION claim_webhook_deliveries(
  p_limit integer,
  p_worker text,
  p_now bigint,
  p_paused_text text,
  p_removed_text text
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
-- Without statistics (PGlite never gathers them; PostgreSQL gathers them while the backlog is empty) the
-- planner expects a few pending rows and reads all of them through a bitmap, then sorts: 5 ms per claim at
-- a 12,000-row backlog instead of well under one walking the index. The setting holds inside the call only.
SET enable_bitmapscan = off
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH picked AS (
    -- Picked and locked alone, in the order of the partial index: joining first would read the backlog.
    -- The columns come with the lock (they never change), so the rows are not looked up again.
    SELECT d.id, d.event_id, d.event_type, d.endpoint_id, d.workspace_id, d.created_at
      FROM webhook_deliveries d
     WHERE d.status = 'pending'
     ORDER BY d.created_at, d.id
     LIMIT p_limit
     FOR UPDATE SKIP LOCKED
  ),
  -- Each endpoint's fate once, however many of its rows were picked (a burst is mostly one endpoint's).
  targets AS MATERIALIZED (
    SELECT t.endpoint_id, t.workspace_id, e.url, e.secret_enc, e.previous_secret_enc, e.rotating_until,
           CASE WHEN NOT w.webhooks_enabled THEN 'off'
                WHEN e.deleted_at IS NOT NULL OR e.secret_enc IS NULL THEN 'removed'
                WHEN e.status <> 'active' THEN 'paused'
                WHEN e.consecutive_failures = 0 THEN 'dial'
                ELSE 'failing' END AS state
      FROM (SELECT DISTINCT p.endpoint_id, p.workspace_id FROM picked p) t
      JOIN webhook_endpoints e ON e.id = t.endpoint_id
      JOIN workspaces w ON w.id = t.workspace_id
  ),
  candidates AS (
    SELECT p.id, p.event_id, p.event_type, p.endpoint_id, p.created_at, t.url, t.secret_enc,
           t.previous_secret_enc, t.rotating_until, ev.body, t.state
      FROM picked p
      JOIN targets t ON t.endpoint_id = p.endpoint_id AND t.workspace_id = p.workspace_id
      JOIN events ev ON ev.id = p.event_id
  ),
  -- An endpoint in a failure run is dialled one attempt at a time, so that the attempt recording the 20th
  -- failure is the last one made: its oldest picked row, and only while none of its rows is on the wire.
  probes AS (
    SELECT DISTINCT ON (c.endpoint_id) c.id FROM candidates c
     WHERE c.state = 'failing'
       AND NOT EXISTS (
         SELECT 1 FROM webhook_deliveries s WHERE s.endpoint_id = c.endpoint_id AND s.status = 'sending'
       )
     ORDER BY c.endpoint_id, c.created_at, c.id
  ),
  verdicts AS (
    SELECT c.*,
           CASE WHEN c.state = 'dial' OR c.id IN (SELECT pr.id FROM probes pr) THEN 'dial'
                WHEN c.state = 'failing' THEN 'deferred'
                ELSE c.state END AS verdict
      FROM candidates c
  ),
  settled AS (
    UPDATE webhook_deliveries d
       SET status = CASE WHEN v.verdict = 'dial' THEN 'sending' ELSE 'failed' END,
           response_excerpt = CASE v.verdict WHEN 'paused' THEN p_paused_text
                                             WHEN 'removed' THEN p_removed_text
                                             ELSE d.response_excerpt END,
           claimed_at = p_now,
           claimed_by = p_worker
      FROM verdicts v
     WHERE d.id = v.id AND v.verdict IN ('dial', 'paused', 'removed')
  ),
  dropped AS (
    DELETE FROM webhook_deliveries d USING verdicts v WHERE d.id = v.id AND v.verdict = 'off'
  )
  SELECT v.id, v.event_id, v.event_type, v.endpoint_id, v.url, v.secret_enc, v.previous_secret_enc,
         v.rotating_until, v.body, v.verdict
    FROM verdicts v
   ORDER BY v.created_at, v.id;
END
$$;

CREATE OR REPLACE FUNCTION record_webhook_successes(
  p_ids text[],
  p_http_statuses integer[],
  p_latencies double precision[],
  p_excerpts text[]
)
RETURNS void
LANGUAGE plpgsql
SET enable_seqscan = off
AS $$
#variable_conflict use_column
BEGIN
  WITH outcome AS (
    SELECT * FROM unnest(p_ids, p_http_statuses, p_latencies, p_excerpts)
      AS o(id, http_status, latency_ms, excerpt)
  ),
  settled AS (
    UPDATE webhook_deliveries d
       SET status = 'delivered', http_status = o.http_status, latency_ms = o.latency_ms,
           response_excerpt = o.excerpt, next_attempt_at = NULL
      FROM outcome o
     WHERE d.id = o.id AND d.status IS NOT DISTINCT FROM 'sending'
    RETURNING d.endpoint_id
  )
  UPDATE webhook_endpoints e
     SET consecutive_failures = 0
   WHERE e.id IN (SELECT endpoint_id FROM settled)
     AND e.deleted_at IS NULL
     AND e.status = 'active'
     AND e.consecutive_failures <> 0;
END
$$;
