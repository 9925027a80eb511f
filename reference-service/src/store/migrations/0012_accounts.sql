-- Accounts of the portal (issue 17): sign-up, MFA enrolment with recovery codes, invited members and their
-- removal. Secrets follow the rules of the rest of the schema: sealed (AES-GCM, secret-box.ts) when the
-- service must read them back, hashed when it only compares.

-- The member who created the workspace (or was named by the operator). An owner cannot be removed.
ALTER TABLE members ADD COLUMN owner BOOLEAN NOT NULL DEFAULT FALSE;
-- Workspaces that existed before: their first member owns them.
UPDATE members SET owner = TRUE
 WHERE id IN (SELECT DISTINCT ON (workspace_id) id FROM members ORDER BY workspace_id, created_at, id);

-- A TOTP seed offered by enrolment and not yet confirmed with a first code, sealed like mfa_secret_enc.
ALTER TABLE members ADD COLUMN mfa_pending_enc TEXT;

-- An invited member has no password until the invite is accepted.
ALTER TABLE members ALTER COLUMN password_hash DROP NOT NULL;

-- Removed members stay as rows (their revoked keys still name them) but hold nothing: no session, no live
-- key, no permission. Their e-mail may be invited again, so it is unique among members not removed.
ALTER TABLE members ADD COLUMN removed_at BIGINT;
ALTER TABLE members DROP CONSTRAINT members_email_key;
CREATE UNIQUE INDEX members_email_live ON members (email) WHERE removed_at IS NULL;

-- Single-use recovery codes: a SHA-256 of the member id and the code (80 random bits each, so a fast hash
-- leaves nothing to brute-force). A used code keeps its row with used_at set.
CREATE TABLE member_recovery_codes (
  member_id TEXT NOT NULL REFERENCES members (id),
  code_hash TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  used_at BIGINT,
  PRIMARY KEY (member_id, code_hash)
);

-- One open invite per invited member: the token's SHA-256, until it expires or is accepted (the row is
-- deleted by the acceptance, so a token works once).
CREATE TABLE member_invites (
  member_id TEXT PRIMARY KEY REFERENCES members (id),
  token_hash TEXT NOT NULL UNIQUE,
  invited_by TEXT NOT NULL REFERENCES members (id),
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);

-- Sessions are looked up by member when the member is removed.
CREATE INDEX sessions_member ON sessions (member_id);
CREATE INDEX api_keys_member ON api_keys (member_id);
