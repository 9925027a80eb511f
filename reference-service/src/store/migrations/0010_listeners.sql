-- `svc-webhooks listen`: an endpoint whose deliveries travel over the CLI's stream instead of being dialled.
-- A listener is an ordinary webhook endpoint (filter, log, failure run, removal) with `listener_seen_at`
-- set: the last time a stream held it, so that a listener whose CLI vanished without closing it is removed.
-- `listener_stream` names the one stream that holds it (the SHA-256 of the token its CLI got): only that
-- stream is sent deliveries and may report their answers, on whichever instance it is.
ALTER TABLE webhook_endpoints ADD COLUMN listener_seen_at BIGINT;
ALTER TABLE webhook_endpoints ADD COLUMN listener_stream TEXT;

-- One signing secret per workspace for all its listeners, kept across CLI runs so that a local app
-- configured once keeps verifying (sealed like the endpoints' secrets, bound to the workspace id).
CREATE TABLE listener_secrets (
  workspace_id TEXT PRIMARY KEY REFERENCES workspaces (id),
  secret_enc TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
