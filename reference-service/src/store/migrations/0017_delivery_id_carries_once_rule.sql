-- A delivery's id is derived from its event and endpoint (a digest of the two, in the same `dlv_` and 24 hex
-- digits as every id), so the primary key alone keeps "one row per event and endpoint", and the unique index
-- that kept it is dropped. Every write of the delivery log updates each of the table's indexes (a status
-- change is never a HOT update: status is in the partial indexes' predicates), and on PGlite each index cost
-- about 9 µs per row of a claim and as much of a logged success (one worker, 10,000-row bursts): a fifth of
-- the database's work per delivery. Rows written before this migration keep their random ids; their events
-- are never fanned out again, so no new row can meet them.
-- STABLE, not IMMUTABLE: `convert_to` is STABLE, and the planner inlines a SQL function into the statement
-- that calls it only when the function claims no more than its body; declared IMMUTABLE, it would run as a
-- function call for every row of a burst.
CREATE FUNCTION webhook_delivery_id(p_event_id text, p_endpoint_id text) RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT 'dlv_' || left(encode(sha256(convert_to(p_event_id || ' ' || p_endpoint_id, 'UTF8')), 'hex'), 24)
$$;

ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_once;
