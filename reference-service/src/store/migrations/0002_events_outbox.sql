-- Events and the delivery outbox (see src/delivery/). An event row is written in the same transaction as
-- the change that causes it, together with one pending delivery row per endpoint that should receive it:
-- a rolled-back change leaves neither, a committed one always has both.
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  identity TEXT NOT NULL,
  type TEXT NOT NULL,
  -- The delivery body exactly as it is signed and sent, so every attempt of one event carries the same bytes.
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX events_workspace ON events (workspace_id, created_at, id);

-- The outbox is the delivery log itself: a row is `pending` until a worker claims it (`sending`, committed
-- before the request is made), then `delivered`, `failed` or, when the outcome was lost in a crash,
-- `abandoned`. The unique key is the "exactly one attempt per event and endpoint" rule.
ALTER TABLE webhook_deliveries ADD COLUMN claimed_at BIGINT;
ALTER TABLE webhook_deliveries ADD COLUMN claimed_by TEXT;
ALTER TABLE webhook_deliveries
  ADD CONSTRAINT webhook_deliveries_once UNIQUE (event_id, endpoint_id);
ALTER TABLE webhook_deliveries
  ADD CONSTRAINT webhook_deliveries_status
  CHECK (status IN ('pending', 'sending', 'delivered', 'failed', 'abandoned'));
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (created_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_sending ON webhook_deliveries (claimed_at) WHERE status = 'sending';
