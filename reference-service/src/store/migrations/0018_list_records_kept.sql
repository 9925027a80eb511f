-- Each contact's record, and each finished delivery's, kept as the JSON text its list answers, written when
-- the row is written. Building the text with row_to_json at every read was most of a 100-row list's
-- statement (on PGlite's thread 1,340 µs, against 550 read from the column; bench/RESULTS.md, seventeenth
-- sitting), and a list is read far more often than its rows change. One function per record makes the text,
-- and the lists call it for a row that keeps none, so a kept text and a fresh one are the same bytes.

ALTER TABLE contacts ADD COLUMN record_json TEXT;

-- The records' members, in the contract's order: a ROW cast to a named type is written by row_to_json
-- with these names, in an expression with no FROM, so the planner inlines the functions below.
CREATE TYPE contact_api_record AS (
  fingerprint TEXT,
  display_name TEXT,
  status TEXT,
  preset TEXT,
  permissions TEXT[],
  trust_flag TEXT,
  petname TEXT,
  last_seen_at BIGINT,
  created_at BIGINT,
  endpoint TEXT,
  address_claim TEXT,
  acceptance_unheard_since BIGINT
);

CREATE TYPE webhook_delivery_api_record AS (
  id TEXT,
  endpoint_id TEXT,
  event_id TEXT,
  event_type TEXT,
  attempt INTEGER,
  status TEXT,
  http_status INTEGER,
  latency_ms DOUBLE PRECISION,
  response_excerpt TEXT,
  next_attempt_at BIGINT,
  created_at BIGINT
);

CREATE FUNCTION contact_record_json(c contacts) RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT row_to_json(ROW(c.fingerprint, c.display_name, c.status, c.preset, c.permissions, c.trust_flag,
                         c.petname, c.last_seen_at, c.created_at, c.endpoint, NULL,
                         c.acceptance_unheard_since)::contact_api_record)::text
$$;

-- NaN and the infinities, which JSON has no number for, read null, as JSON.stringify writes them: no writer
-- stores one, but the column allows it.
CREATE FUNCTION webhook_delivery_record_json(
  p_id text, p_endpoint_id text, p_event_id text, p_event_type text, p_attempt integer, p_status text,
  p_http_status integer, p_latency_ms double precision, p_response_excerpt text, p_next_attempt_at bigint,
  p_created_at bigint
) RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT row_to_json(ROW(p_id, p_endpoint_id, p_event_id, p_event_type, p_attempt, p_status, p_http_status,
                         CASE WHEN p_latency_ms > '-Infinity' AND p_latency_ms < 'Infinity' THEN p_latency_ms END,
                         p_response_excerpt, p_next_attempt_at, p_created_at)::webhook_delivery_api_record)::text
$$;

-- Contacts are written seldom, and by one upsert (store/queries/contacts.ts): a trigger keeps every write's
-- text, whatever statement makes it.
CREATE FUNCTION contacts_keep_record() RETURNS trigger
  LANGUAGE plpgsql
AS $$
BEGIN
  NEW.record_json := contact_record_json(NEW);
  RETURN NEW;
END
$$;

CREATE TRIGGER contacts_keep_record
  BEFORE INSERT OR UPDATE ON contacts
  FOR EACH ROW EXECUTE FUNCTION contacts_keep_record();

-- The contacts already written get their text (the update runs the trigger), before the delivery log is
-- touched: its lock, taken below, is then held for less of this transaction. The log, which may be long, is
-- left as it is: a row without a text is written by the list, as before.
UPDATE contacts SET record_json = NULL;

ALTER TABLE webhook_deliveries ADD COLUMN record_json TEXT;
COMMENT ON COLUMN webhook_deliveries.record_json IS
  'The API record of a delivery with a final status, as JSON text; set by every statement that finishes a row, which is never written again (migration 0018)';

-- The delivery log is written on the delivery path, where a row trigger, even one whose WHEN is false, made
-- a 10,000-event burst's insert half as slow again on PGlite: the statements that give a row its final status
-- (the success log below, the failure log and the sweeper in store/queries/deliveries-claim.ts) write its
-- text themselves. A final row is never written again; a pending or sending one keeps no text, nor does one
-- failed by the claim (an endpoint paused or removed meanwhile: few), and the list writes those.
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
           response_excerpt = o.excerpt, next_attempt_at = NULL,
           record_json = webhook_delivery_record_json(
             p_id => d.id, p_endpoint_id => d.endpoint_id, p_event_id => d.event_id,
             p_event_type => d.event_type, p_attempt => d.attempt, p_status => 'delivered',
             p_http_status => o.http_status, p_latency_ms => o.latency_ms, p_response_excerpt => o.excerpt,
             p_next_attempt_at => NULL, p_created_at => d.created_at)
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
