-- Identity integrations: upstream MCP tool servers (see src/integrations/ and the README).

-- One upstream per row, named by `slug` within its identity. Every secret is sealed with the at-rest key
-- and bound to the integration id: the static credential (`auth_enc`, a header name and value), the OAuth
-- client registration, tokens and the PKCE verifier of a ceremony in progress. Deleting the row forgets them.
-- `oauth_state` is the random value the authorization server hands back to the callback route.
-- `catalog` is the upstream's tool list as last seen (JSON); `exposure` the entries contacts may reach
-- (JSON), bumped `exposure_version` on each write.
CREATE TABLE integrations (
  id TEXT PRIMARY KEY,
  identity_id TEXT NOT NULL REFERENCES identities (id),
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  slug TEXT NOT NULL,
  transport TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  catalogue TEXT,
  status TEXT NOT NULL CHECK (status IN ('healthy', 'needs_authorization', 'unreachable', 'error')),
  trouble TEXT,
  auth_enc TEXT,
  oauth_client_enc TEXT,
  oauth_tokens_enc TEXT,
  oauth_verifier_enc TEXT,
  oauth_state TEXT UNIQUE,
  oauth_redirect_uri TEXT,
  catalog TEXT NOT NULL,
  exposure TEXT NOT NULL,
  exposure_version INTEGER NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (identity_id, slug)
);
CREATE INDEX integrations_listing ON integrations (identity_id, created_at, slug);
