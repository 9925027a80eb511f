-- record_webhook_successes (0006) did not always find its rows by primary key. Its plan is made once per session
-- (PostgreSQL 18, which PGlite is, keeps SQL functions' plans), from the table as it is at the first batch, and:
--   - planned against a small table (a new service's first delivery), it reads the whole table for every batch;
--   - planned later, it may read the partial index of `sending` rows. A row leaves `sending` with a new row
--     version, and its entry in that index stays until VACUUM removes it: on PGlite, which has no autovacuum,
--     the index keeps an entry for every row ever sent, and each batch read them all.
-- Either way a batch cost more with every past delivery (one more page per ~30 of them).
--
-- The same statement, written so that the primary key is its only way to the rows: sequential scans are off
-- inside the call, and the still-sending test is IS NOT DISTINCT FROM (the same test on a NOT NULL column),
-- which the planner cannot match to the index's `status = 'sending'` predicate.
CREATE OR REPLACE FUNCTION record_webhook_successes(
  p_ids text[],
  p_http_statuses integer[],
  p_latencies double precision[],
  p_excerpts text[]
)
RETURNS void
LANGUAGE sql
SET enable_seqscan = off
AS $$
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
     AND e.consecutive_failures <> 0
$$;
