-- Identity contacts (see src/domain/contacts/ and PEER-PROTOCOL.md).

-- Each identity's Ed25519 key pair and its current signed card. The private key is sealed with the at-rest
-- key (bound to the identity id), like webhook secrets. The fingerprint is SHA-256 of the raw public key.
CREATE TABLE identity_keys (
  identity_id TEXT PRIMARY KEY REFERENCES identities (id),
  fingerprint TEXT NOT NULL UNIQUE,
  public_key TEXT NOT NULL,
  private_key_enc TEXT NOT NULL,
  card TEXT,
  card_expires_at BIGINT,
  created_at BIGINT NOT NULL
);

-- One identity's view of another party, keyed by that party's fingerprint. `card` is the last verified
-- card the party presented; `public_key` comes from it and checks the party's peer requests.
CREATE TABLE contacts (
  identity_id TEXT NOT NULL REFERENCES identities (id),
  fingerprint TEXT NOT NULL,
  workspace_id TEXT NOT NULL REFERENCES workspaces (id),
  display_name TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  public_key TEXT NOT NULL,
  card TEXT NOT NULL,
  card_expires_at BIGINT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'pending_in', 'pending_out', 'blocked')),
  -- What unblock goes back to: a former contact becomes active again, a declined request is forgotten.
  blocked_kind TEXT CHECK (blocked_kind IN ('contact', 'declined')),
  preset TEXT NOT NULL,
  permissions TEXT[] NOT NULL,
  trust_flag TEXT NOT NULL,
  petname TEXT NOT NULL,
  request_note TEXT,
  last_seen_at BIGINT NOT NULL,
  acceptance_unheard_since BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (identity_id, fingerprint),
  CHECK ((status = 'blocked') = (blocked_kind IS NOT NULL))
);
CREATE INDEX contacts_listing ON contacts (identity_id, created_at, fingerprint);

-- Token buckets of the outbound limits (spec part 8). One row per bucket, updated by a single atomic
-- upsert, so instances sharing one database share the budget.
CREATE TABLE outbound_budgets (
  bucket TEXT PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  updated_at BIGINT NOT NULL
);

-- Nonces of accepted peer requests, kept a little longer than the replay window: a second request with
-- the same caller and nonce is a replay.
CREATE TABLE peer_nonces (
  fingerprint TEXT NOT NULL,
  nonce TEXT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (fingerprint, nonce)
);
CREATE INDEX peer_nonces_expiry ON peer_nonces (expires_at);
