-- The service writes every API record from the row it reads, by the contract's schema; the rows no longer
-- keep a JSON text of their record, and the database no longer knows the records' members. Undoes what
-- migrations 0018 and 0019 added: their triggers, functions, types and columns.

DROP TRIGGER contacts_keep_record ON contacts;
DROP FUNCTION contacts_keep_record();
DROP FUNCTION contact_record_json(contacts);
DROP TYPE contact_api_record;
ALTER TABLE contacts DROP COLUMN record_json;

DROP TRIGGER webhook_endpoints_keep_record ON webhook_endpoints;
DROP FUNCTION webhook_endpoints_keep_record();
DROP FUNCTION webhook_endpoint_record_json(text, text, text[], text, integer, bigint, bigint, bigint);
DROP TYPE webhook_endpoint_api_record;
ALTER TABLE webhook_endpoints DROP COLUMN record_json;

-- The success log as it was before 0018, without the record text it wrote.
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

DROP FUNCTION webhook_delivery_record_json(text, text, text, text, integer, text, integer, double precision,
                                           text, bigint, bigint);
DROP TYPE webhook_delivery_api_record;
ALTER TABLE webhook_deliveries DROP COLUMN record_json;
