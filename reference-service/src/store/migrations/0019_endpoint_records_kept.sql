-- Each webhook endpoint's record kept as the JSON text its lists answer (the workspace's list and the
-- answer of a status change), as migration 0018 keeps contacts'. On PGlite a status change spent 100 µs of
-- the main thread against its one-UPDATE floor's 36, a sixth of it decoding the ten rows of its answer and
-- writing them as JSON again, beside 11 % in the collector (bench/RESULTS.md, nineteenth sitting). The
-- text holds `rotating_until` as stored; a list reads it as null once the overlap is over, since only a
-- read knows the time (store/queries/webhook-endpoints.ts).

ALTER TABLE webhook_endpoints ADD COLUMN record_json TEXT;

-- The record's members in the contract's order (features/webhooks/records.ts).
CREATE TYPE webhook_endpoint_api_record AS (
  id TEXT,
  url TEXT,
  events TEXT[],
  status TEXT,
  consecutive_failures INTEGER,
  rotating_until BIGINT,
  created_at BIGINT,
  updated_at BIGINT
);

CREATE FUNCTION webhook_endpoint_record_json(
  p_id text, p_url text, p_events text[], p_status text, p_consecutive_failures integer,
  p_rotating_until bigint, p_created_at bigint, p_updated_at bigint
) RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT row_to_json(ROW(p_id, p_url, p_events, p_status, p_consecutive_failures, p_rotating_until,
                         p_created_at, p_updated_at)::webhook_endpoint_api_record)::text
$$;

-- Endpoints are written by the API, by the failure log (every failed attempt, a pause) and by relay
-- listeners' bookkeeping: a trigger keeps every write's text, whatever statement makes it. A success with
-- no failure run writes no endpoint row (store/queries/deliveries-claim.ts), so a success pays nothing. A
-- later migration that rewrites the table without firing row triggers (ALTER COLUMN TYPE … USING), or adds
-- a BEFORE trigger that changes NEW after this one, must write the texts again.
CREATE FUNCTION webhook_endpoints_keep_record() RETURNS trigger
  LANGUAGE plpgsql
AS $$
BEGIN
  NEW.record_json := webhook_endpoint_record_json(
    p_id => NEW.id, p_url => NEW.url, p_events => NEW.events, p_status => NEW.status,
    p_consecutive_failures => NEW.consecutive_failures, p_rotating_until => NEW.rotating_until,
    p_created_at => NEW.created_at, p_updated_at => NEW.updated_at);
  RETURN NEW;
END
$$;

CREATE TRIGGER webhook_endpoints_keep_record
  BEFORE INSERT OR UPDATE ON webhook_endpoints
  FOR EACH ROW EXECUTE FUNCTION webhook_endpoints_keep_record();

-- The endpoints already written get their text (the update runs the trigger).
UPDATE webhook_endpoints SET record_json = NULL;
