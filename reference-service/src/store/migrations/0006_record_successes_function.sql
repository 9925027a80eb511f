-- The success log's statement as a function (see src/store/queries/deliveries-claim.ts, recordSuccesses):
-- sent as plain SQL it was parsed and planned on every batch, a fixed cost that on PGlite weighed as much as
-- a dozen rows; a function's plan is kept by the session.
--
-- Each row still `sending` becomes `delivered` with its status, latency and excerpt; the endpoints among
-- them that had a failure run get it cleared.
CREATE FUNCTION record_webhook_successes(
  p_ids text[],
  p_http_statuses integer[],
  p_latencies double precision[],
  p_excerpts text[]
)
RETURNS void
LANGUAGE sql
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
     WHERE d.id = o.id AND d.status = 'sending'
    RETURNING d.endpoint_id
  )
  UPDATE webhook_endpoints e
     SET consecutive_failures = 0
   WHERE e.id IN (SELECT endpoint_id FROM settled)
     AND e.deleted_at IS NULL
     AND e.status = 'active'
     AND e.consecutive_failures <> 0
$$;
