-- Tenancy and people. Timestamps are BIGINT milliseconds since the Unix epoch, as in the API.
CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  webhooks_enabled BOOLEAN NOT NULL DEFAULT FALSE,
  suspended BOOLEAN NOT NULL DEFAULT FALSE,
  deletion_hold BOOLEAN NOT NULL DEFAULT FALSE,
  created_at BIGINT NOT NULL
);

CREATE TABLE members (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  permissions TEXT[] NOT NULL,
  -- The TOTP seed, encrypted at rest like webhook secrets; NULL until MFA is enrolled.
  mfa_secret_enc TEXT,
  created_at BIGINT NOT NULL
);

CREATE TABLE identities (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  slug TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL
);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  member_id TEXT NOT NULL REFERENCES members (id),
  -- Only a hash of the cookie value is kept, so a database leak does not hand out live sessions.
  token_hash TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  stepped_up_at BIGINT
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  member_id TEXT NOT NULL REFERENCES members (id),
  name TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  scopes TEXT[] NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);

-- Webhook endpoints are soft-deleted: the delivery log of a removed endpoint stays readable by its id.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  url TEXT NOT NULL,
  events TEXT[] NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'paused')),
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  -- Signing secrets are AES-256-GCM ciphertexts (see secret-box.ts); both are wiped on delete.
  secret_enc TEXT,
  previous_secret_enc TEXT,
  rotating_until BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  deleted_at BIGINT
);
CREATE INDEX webhook_endpoints_workspace ON webhook_endpoints (workspace_id, created_at, id);

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id),
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  status TEXT NOT NULL,
  http_status INTEGER,
  latency_ms DOUBLE PRECISION,
  response_excerpt TEXT,
  next_attempt_at BIGINT,
  created_at BIGINT NOT NULL
);
CREATE INDEX webhook_deliveries_newest ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

-- The unique key is what makes concurrent repeats safe: the second insert waits for the first
-- transaction and then sees its row (see queries/idempotency.ts).
CREATE TABLE idempotency_keys (
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  response_status INTEGER,
  -- The answer as JSON text, so a replay is byte-for-byte the first answer (JSONB would reorder keys).
  response_body TEXT,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, key)
);
