-- What the migrations in migrations/ add up to, written by test/store/current-schema.test.ts
-- (UPDATE_SCHEMA=1 rewrites it). Read it; never apply it: the migrations are the schema.

TABLE api_keys (
  id text NOT NULL,
  workspace_id text NOT NULL,
  member_id text NOT NULL,
  name text NOT NULL,
  secret_hash text NOT NULL,
  scopes text[] NOT NULL,
  created_at bigint NOT NULL,
  revoked_at bigint,
  auth_version bigint NOT NULL DEFAULT nextval('svc_auth_versions'::regclass)
);

TABLE contacts (
  identity_id text NOT NULL,
  fingerprint text NOT NULL,
  workspace_id text NOT NULL,
  display_name text NOT NULL,
  endpoint text NOT NULL,
  public_key text NOT NULL,
  card text NOT NULL,
  card_expires_at bigint NOT NULL,
  status text NOT NULL,
  blocked_kind text,
  preset text NOT NULL,
  permissions text[] NOT NULL,
  trust_flag text NOT NULL,
  petname text NOT NULL,
  request_note text,
  last_seen_at bigint NOT NULL,
  acceptance_unheard_since bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);

TABLE events (
  id text NOT NULL,
  workspace_id text NOT NULL,
  identity text NOT NULL,
  type text NOT NULL,
  body text NOT NULL,
  created_at bigint NOT NULL
);

TABLE idempotency_keys (
  workspace_id text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  response_status integer,
  response_body text,
  created_at bigint NOT NULL
);

TABLE identities (
  id text NOT NULL,
  workspace_id text NOT NULL,
  slug text NOT NULL,
  created_at bigint NOT NULL
);

TABLE identity_keys (
  identity_id text NOT NULL,
  fingerprint text NOT NULL,
  public_key text NOT NULL,
  private_key_enc text NOT NULL,
  card text,
  card_expires_at bigint,
  created_at bigint NOT NULL
);

TABLE integrations (
  id text NOT NULL,
  identity_id text NOT NULL,
  workspace_id text NOT NULL,
  slug text NOT NULL,
  transport text NOT NULL,
  endpoint text NOT NULL,
  catalogue text,
  status text NOT NULL,
  trouble text,
  auth_enc text,
  oauth_client_enc text,
  oauth_tokens_enc text,
  oauth_verifier_enc text,
  oauth_state text,
  oauth_redirect_uri text,
  catalog text NOT NULL,
  exposure text NOT NULL,
  exposure_version integer NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL
);

TABLE listener_secrets (
  workspace_id text NOT NULL,
  secret_enc text NOT NULL,
  created_at bigint NOT NULL,
  previous_secret_enc text,
  rotating_until bigint
);

TABLE member_invites (
  member_id text NOT NULL,
  token_hash text NOT NULL,
  invited_by text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL
);

TABLE member_recovery_codes (
  member_id text NOT NULL,
  code_hash text NOT NULL,
  created_at bigint NOT NULL,
  used_at bigint
);

TABLE members (
  id text NOT NULL,
  workspace_id text NOT NULL,
  email text NOT NULL,
  password_hash text,
  permissions text[] NOT NULL,
  mfa_secret_enc text,
  created_at bigint NOT NULL,
  totp_last_step bigint,
  owner boolean NOT NULL DEFAULT false,
  mfa_pending_enc text,
  removed_at bigint,
  auth_version bigint NOT NULL DEFAULT nextval('svc_auth_versions'::regclass)
);

TABLE outbound_budgets (
  bucket text NOT NULL,
  tokens double precision NOT NULL,
  updated_at bigint NOT NULL
);

TABLE peer_nonces (
  fingerprint text NOT NULL,
  nonce text NOT NULL,
  expires_at bigint NOT NULL
);

TABLE schema_migrations (
  version integer NOT NULL,
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at bigint NOT NULL
);

TABLE sessions (
  id text NOT NULL,
  member_id text NOT NULL,
  token_hash text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  stepped_up_at bigint
);

TABLE sign_in_known_addresses (
  account text NOT NULL,
  address text NOT NULL,
  last_seen_at bigint NOT NULL
);

TABLE webhook_deliveries (
  id text NOT NULL,
  workspace_id text NOT NULL,
  endpoint_id text NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  attempt integer NOT NULL,
  status text NOT NULL,
  http_status integer,
  latency_ms double precision,
  response_excerpt text,
  next_attempt_at bigint,
  created_at bigint NOT NULL,
  claimed_at bigint,
  claimed_by text,
  no_answer_reason text
);

TABLE webhook_endpoints (
  id text NOT NULL,
  workspace_id text NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  status text NOT NULL,
  consecutive_failures integer NOT NULL DEFAULT 0,
  secret_enc text,
  previous_secret_enc text,
  rotating_until bigint,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  deleted_at bigint,
  listener_seen_at bigint,
  listener_stream text,
  host text
);

TABLE workspaces (
  id text NOT NULL,
  name text NOT NULL,
  webhooks_enabled boolean NOT NULL DEFAULT false,
  suspended boolean NOT NULL DEFAULT false,
  deletion_hold boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL,
  auth_version bigint NOT NULL DEFAULT nextval('svc_auth_versions'::regclass)
);

-- Constraints
api_keys api_keys_auth_version_not_null: NOT NULL auth_version
api_keys api_keys_created_at_not_null: NOT NULL created_at
api_keys api_keys_id_not_null: NOT NULL id
api_keys api_keys_member_id_fkey: FOREIGN KEY (member_id) REFERENCES members(id)
api_keys api_keys_member_id_not_null: NOT NULL member_id
api_keys api_keys_name_not_null: NOT NULL name
api_keys api_keys_pkey: PRIMARY KEY (id)
api_keys api_keys_scopes_not_null: NOT NULL scopes
api_keys api_keys_secret_hash_not_null: NOT NULL secret_hash
api_keys api_keys_workspace_id_fkey: FOREIGN KEY (workspace_id) REFERENCES workspaces(id)
api_keys api_keys_workspace_id_not_null: NOT NULL workspace_id
contacts contacts_blocked_kind_check: CHECK ((blocked_kind = ANY (ARRAY['contact'::text, 'declined'::text])))
contacts contacts_card_expires_at_not_null: NOT NULL card_expires_at
contacts contacts_card_not_null: NOT NULL card
contacts contacts_check: CHECK (((status = 'blocked'::text) = (blocked_kind IS NOT NULL)))
contacts contacts_created_at_not_null: NOT NULL created_at
contacts contacts_display_name_not_null: NOT NULL display_name
contacts contacts_endpoint_not_null: NOT NULL endpoint
contacts contacts_fingerprint_not_null: NOT NULL fingerprint
contacts contacts_identity_id_fkey: FOREIGN KEY (identity_id) REFERENCES identities(id)
contacts contacts_identity_id_not_null: NOT NULL identity_id
contacts contacts_last_seen_at_not_null: NOT NULL last_seen_at
contacts contacts_permissions_not_null: NOT NULL permissions
contacts contacts_petname_not_null: NOT NULL petname
contacts contacts_pkey: PRIMARY KEY (identity_id, fingerprint)
contacts contacts_preset_not_null: NOT NULL preset
contacts contacts_public_key_not_null: NOT NULL public_key
contacts contacts_status_check: CHECK ((status = ANY (ARRAY['active'::text, 'pending_in'::text, 'pending_out'::text, 'blocked'::text])))
contacts contacts_status_not_null: NOT NULL status
contacts contacts_trust_flag_not_null: NOT NULL trust_flag
contacts contacts_updated_at_not_null: NOT NULL updated_at
contacts contacts_workspace_id_fkey: FOREIGN KEY (workspace_id) REFERENCES workspaces(id)
contacts contacts_workspace_id_not_null: NOT NULL workspace_id
events events_body_not_null: NOT NULL body
events events_created_at_not_null: NOT NULL created_at
events events_id_not_null: NOT NULL id
events events_identity_not_null: NOT NULL identity
events events_pkey: PRIMARY KEY (id)
events events_type_not_null: NOT NULL type
events events_workspace_id_fkey: FOREIGN KEY (workspace_id) REFERENCES workspaces(id)
events events_workspace_id_not_null: NOT NULL workspace_id
idempotency_keys idempotency_keys_created_at_not_null: NOT NULL created_at
idempotency_keys idempotency_keys_fingerprint_not_null: NOT NULL fingerprint
idempotency_keys idempotency_keys_key_not_null: NOT NULL key
idempotency_keys idempotency_keys_pkey: PRIMARY KEY (workspace_id, key)
idempotency_keys idempotency_keys_workspace_id_fkey: FOREIGN KEY (workspace_id) REFERENCES workspaces(id)
idempotency_keys idempotency_keys_workspace_id_not_null: NOT NULL workspace_id
identities identities_created_at_not_null: NOT NULL created_at
identities identities_id_not_null: NOT NULL id
identities identities_pkey: PRIMARY KEY (id)
identities identities_slug_key: UNIQUE (slug)
identities identities_slug_not_null: NOT NULL slug
identities identities_workspace_id_fkey: FOREIGN KEY (workspace_id) REFERENCES workspaces(id)
identities identities_workspace_id_not_null: NOT NULL workspace_id
identity_keys identity_keys_created_at_not_null: NOT NULL created_at
identity_keys identity_keys_fingerprint_key: UNIQUE (fingerprint)
identity_keys identity_keys_fingerprint_not_null: NOT NULL fingerprint
identity_keys identity_keys_identity_id_fkey: FOREIGN KEY (identity_id) REFERENCES identities(id)
identity_keys identity_keys_identity_id_not_null: NOT NULL identity_id
identity_keys identity_keys_pkey: PRIMARY KEY (identity_id)
identity_keys identity_keys_private_key_enc_not_null: NOT NULL private_key_enc
identity_keys identity_keys_public_key_not_null: NOT NULL public_key
integrations integrations_catalog_not_null: NOT NULL catalog
integrations integrations_created_at_not_null: NOT NULL created_at
integrations integrations_endpoint_not_null: NOT NULL endpoint
integrations integrations_exposure_not_null: NOT NULL exposure
integrations integrations_exposure_version_not_null: NOT NULL exposure_version
integrations integrations_id_not_null: NOT NULL id
integrations integrations_identity_id_fkey: FOREIGN KEY (identity_id) REFERENCES identities(id)
integrations integrations_identity_id_not_null: NOT NULL identity_id
integrations integrations_identity_id_slug_key: UNIQUE (identity_id, slug)
integrations integrations_oauth_state_key: UNIQUE (oauth_state)
integrations integrations_pkey: PRIMARY KEY (id)
integrations integrations_slug_not_null: NOT NULL slug
integrations integrations_status_check: CHECK ((status = ANY (ARRAY['healthy'::text, 'needs_authorization'::text, 'unreachable'::text, 'error'::text])))
integrations integrations_status_not_null: NOT NULL status
integrations integrations_transport_not_null: NOT NULL transport
integrations integrations_updated_at_not_null: NOT NULL updated_at
integrations integrations_workspace_id_fkey: FOREIGN KEY (workspace_id) REFERENCES workspaces(id)
integrations integrations_workspace_id_not_null: NOT NULL workspace_id
listener_secrets listener_secrets_created_at_not_null: NOT NULL created_at
listener_secrets listener_secrets_pkey: PRIMARY KEY (workspace_id)
listener_secrets listener_secrets_secret_enc_not_null: NOT NULL secret_enc
listener_secrets listener_secrets_workspace_id_fkey: FOREIGN KEY (workspace_id) REFERENCES workspaces(id)
listener_secrets listener_secrets_workspace_id_not_null: NOT NULL workspace_id
member_invites member_invites_created_at_not_null: NOT NULL created_at
member_invites member_invites_expires_at_not_null: NOT NULL expires_at
member_invites member_invites_invited_by_fkey: FOREIGN KEY (invited_by) REFERENCES members(id)
member_invites member_invites_invited_by_not_null: NOT NULL invited_by
member_invites member_invites_member_id_fkey: FOREIGN KEY (member_id) REFERENCES members(id)
member_invites member_invites_member_id_not_null: NOT NULL member_id
member_invites member_invites_pkey: PRIMARY KEY (member_id)
member_invites member_invites_token_hash_key: UNIQUE (token_hash)
member_invites member_invites_token_hash_not_null: NOT NULL token_hash
member_recovery_codes member_recovery_codes_code_hash_not_null: NOT NULL code_hash
member_recovery_codes member_recovery_codes_created_at_not_null: NOT NULL created_at
member_recovery_codes member_recovery_codes_member_id_fkey: FOREIGN KEY (member_id) REFERENCES members(id)
member_recovery_codes member_recovery_codes_member_id_not_null: NOT NULL member_id
member_recovery_codes member_recovery_codes_pkey: PRIMARY KEY (member_id, code_hash)
members members_auth_version_not_null: NOT NULL auth_version
members members_created_at_not_null: NOT NULL created_at
members members_email_not_null: NOT NULL email
members members_id_not_null: NOT NULL id
members members_owner_not_null: NOT NULL owner
members members_permissions_not_null: NOT NULL permissions
members members_pkey: PRIMARY KEY (id)
members members_workspace_id_fkey: FOREIGN KEY (workspace_id) REFERENCES workspaces(id)
members members_workspace_id_not_null: NOT NULL workspace_id
outbound_budgets outbound_budgets_bucket_not_null: NOT NULL bucket
outbound_budgets outbound_budgets_pkey: PRIMARY KEY (bucket)
outbound_budgets outbound_budgets_tokens_not_null: NOT NULL tokens
outbound_budgets outbound_budgets_updated_at_not_null: NOT NULL updated_at
peer_nonces peer_nonces_expires_at_not_null: NOT NULL expires_at
peer_nonces peer_nonces_fingerprint_not_null: NOT NULL fingerprint
peer_nonces peer_nonces_nonce_not_null: NOT NULL nonce
peer_nonces peer_nonces_pkey: PRIMARY KEY (fingerprint, nonce)
schema_migrations schema_migrations_applied_at_not_null: NOT NULL applied_at
schema_migrations schema_migrations_checksum_not_null: NOT NULL checksum
schema_migrations schema_migrations_name_not_null: NOT NULL name
schema_migrations schema_migrations_pkey: PRIMARY KEY (version)
schema_migrations schema_migrations_version_not_null: NOT NULL version
sessions sessions_created_at_not_null: NOT NULL created_at
sessions sessions_expires_at_not_null: NOT NULL expires_at
sessions sessions_id_not_null: NOT NULL id
sessions sessions_member_id_fkey: FOREIGN KEY (member_id) REFERENCES members(id)
sessions sessions_member_id_not_null: NOT NULL member_id
sessions sessions_pkey: PRIMARY KEY (id)
sessions sessions_token_hash_key: UNIQUE (token_hash)
sessions sessions_token_hash_not_null: NOT NULL token_hash
sign_in_known_addresses sign_in_known_addresses_account_not_null: NOT NULL account
sign_in_known_addresses sign_in_known_addresses_address_not_null: NOT NULL address
sign_in_known_addresses sign_in_known_addresses_last_seen_at_not_null: NOT NULL last_seen_at
sign_in_known_addresses sign_in_known_addresses_pkey: PRIMARY KEY (account, address)
webhook_deliveries webhook_deliveries_attempt_not_null: NOT NULL attempt
webhook_deliveries webhook_deliveries_created_at_not_null: NOT NULL created_at
webhook_deliveries webhook_deliveries_endpoint_id_not_null: NOT NULL endpoint_id
webhook_deliveries webhook_deliveries_endpoint_in_workspace: FOREIGN KEY (workspace_id, endpoint_id) REFERENCES webhook_endpoints(workspace_id, id)
webhook_deliveries webhook_deliveries_event_id_not_null: NOT NULL event_id
webhook_deliveries webhook_deliveries_event_type_not_null: NOT NULL event_type
webhook_deliveries webhook_deliveries_id_not_null: NOT NULL id
webhook_deliveries webhook_deliveries_no_answer_reason: CHECK ((no_answer_reason = ANY (ARRAY['timeout'::text, 'connect_timeout'::text, 'refused'::text, 'reset'::text, 'unreachable'::text, 'dns'::text, 'tls'::text, 'invalid_response'::text, 'guard_refused'::text, 'listener_gone'::text, 'listener_silent'::text, 'service_stopped'::text, 'other'::text]))) NOT VALID
webhook_deliveries webhook_deliveries_pkey: PRIMARY KEY (id)
webhook_deliveries webhook_deliveries_status: CHECK ((status = ANY (ARRAY['pending'::text, 'sending'::text, 'delivered'::text, 'failed'::text, 'abandoned'::text, 'not_sent_paused'::text, 'not_sent_removed'::text])))
webhook_deliveries webhook_deliveries_status_not_null: NOT NULL status
webhook_deliveries webhook_deliveries_workspace_id_not_null: NOT NULL workspace_id
webhook_endpoints webhook_endpoints_consecutive_failures_not_null: NOT NULL consecutive_failures
webhook_endpoints webhook_endpoints_created_at_not_null: NOT NULL created_at
webhook_endpoints webhook_endpoints_events_not_null: NOT NULL events
webhook_endpoints webhook_endpoints_id_not_null: NOT NULL id
webhook_endpoints webhook_endpoints_pkey: PRIMARY KEY (id)
webhook_endpoints webhook_endpoints_status_check: CHECK ((status = ANY (ARRAY['active'::text, 'paused'::text])))
webhook_endpoints webhook_endpoints_status_not_null: NOT NULL status
webhook_endpoints webhook_endpoints_updated_at_not_null: NOT NULL updated_at
webhook_endpoints webhook_endpoints_url_not_null: NOT NULL url
webhook_endpoints webhook_endpoints_workspace_id_fkey: FOREIGN KEY (workspace_id) REFERENCES workspaces(id)
webhook_endpoints webhook_endpoints_workspace_id_not_null: NOT NULL workspace_id
workspaces workspaces_auth_version_not_null: NOT NULL auth_version
workspaces workspaces_created_at_not_null: NOT NULL created_at
workspaces workspaces_deletion_hold_not_null: NOT NULL deletion_hold
workspaces workspaces_id_not_null: NOT NULL id
workspaces workspaces_name_not_null: NOT NULL name
workspaces workspaces_pkey: PRIMARY KEY (id)
workspaces workspaces_suspended_not_null: NOT NULL suspended
workspaces workspaces_webhooks_enabled_not_null: NOT NULL webhooks_enabled

-- Indexes
CREATE INDEX api_keys_member ON public.api_keys USING btree (member_id);
CREATE UNIQUE INDEX api_keys_pkey ON public.api_keys USING btree (id);
CREATE INDEX contacts_listing ON public.contacts USING btree (identity_id, created_at, fingerprint);
CREATE UNIQUE INDEX contacts_pkey ON public.contacts USING btree (identity_id, fingerprint);
CREATE UNIQUE INDEX events_pkey ON public.events USING btree (id);
CREATE INDEX events_workspace ON public.events USING btree (workspace_id, created_at, id);
CREATE UNIQUE INDEX idempotency_keys_pkey ON public.idempotency_keys USING btree (workspace_id, key);
CREATE UNIQUE INDEX identities_pkey ON public.identities USING btree (id);
CREATE UNIQUE INDEX identities_slug_key ON public.identities USING btree (slug);
CREATE UNIQUE INDEX identity_keys_fingerprint_key ON public.identity_keys USING btree (fingerprint);
CREATE UNIQUE INDEX identity_keys_pkey ON public.identity_keys USING btree (identity_id);
CREATE UNIQUE INDEX integrations_identity_id_slug_key ON public.integrations USING btree (identity_id, slug);
CREATE INDEX integrations_listing ON public.integrations USING btree (identity_id, created_at, slug);
CREATE UNIQUE INDEX integrations_oauth_state_key ON public.integrations USING btree (oauth_state);
CREATE UNIQUE INDEX integrations_pkey ON public.integrations USING btree (id);
CREATE UNIQUE INDEX listener_secrets_pkey ON public.listener_secrets USING btree (workspace_id);
CREATE UNIQUE INDEX member_invites_pkey ON public.member_invites USING btree (member_id);
CREATE UNIQUE INDEX member_invites_token_hash_key ON public.member_invites USING btree (token_hash);
CREATE UNIQUE INDEX member_recovery_codes_pkey ON public.member_recovery_codes USING btree (member_id, code_hash);
CREATE UNIQUE INDEX members_email_live ON public.members USING btree (email) WHERE ((removed_at IS NULL) AND (password_hash IS NOT NULL));
CREATE UNIQUE INDEX members_pkey ON public.members USING btree (id);
CREATE UNIQUE INDEX outbound_budgets_pkey ON public.outbound_budgets USING btree (bucket);
CREATE INDEX peer_nonces_expiry ON public.peer_nonces USING btree (expires_at);
CREATE UNIQUE INDEX peer_nonces_pkey ON public.peer_nonces USING btree (fingerprint, nonce);
CREATE UNIQUE INDEX schema_migrations_pkey ON public.schema_migrations USING btree (version);
CREATE INDEX sessions_member ON public.sessions USING btree (member_id);
CREATE UNIQUE INDEX sessions_pkey ON public.sessions USING btree (id);
CREATE UNIQUE INDEX sessions_token_hash_key ON public.sessions USING btree (token_hash);
CREATE UNIQUE INDEX sign_in_known_addresses_pkey ON public.sign_in_known_addresses USING btree (account, address);
CREATE INDEX webhook_deliveries_newest ON public.webhook_deliveries USING btree (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_pending ON public.webhook_deliveries USING btree (endpoint_id, COALESCE(next_attempt_at, (0)::bigint), created_at, id) WHERE (status = 'pending'::text);
CREATE UNIQUE INDEX webhook_deliveries_pkey ON public.webhook_deliveries USING btree (id);
CREATE INDEX webhook_deliveries_sending ON public.webhook_deliveries USING btree (claimed_at) WHERE (status = 'sending'::text);
CREATE UNIQUE INDEX webhook_endpoints_in_workspace ON public.webhook_endpoints USING btree (workspace_id, id);
CREATE INDEX webhook_endpoints_live_listeners ON public.webhook_endpoints USING btree (id) WHERE ((url = 'listen://svc-webhooks'::text) AND (deleted_at IS NULL));
CREATE UNIQUE INDEX webhook_endpoints_pkey ON public.webhook_endpoints USING btree (id);
CREATE INDEX webhook_endpoints_workspace ON public.webhook_endpoints USING btree (workspace_id, created_at, id);
CREATE UNIQUE INDEX workspaces_pkey ON public.workspaces USING btree (id);

-- Functions
CREATE OR REPLACE FUNCTION public.claim_webhook_deliveries(p_limit integer, p_from text, p_worker text, p_now bigint, p_live_since bigint, p_endpoint_cap integer, p_workspace_cap integer, p_answered text[])
 RETURNS TABLE(id text, event_id text, event_type text, endpoint_id text, url text, secret_enc text, previous_secret_enc text, rotating_until bigint, body text, verdict text, due_at bigint)
 LANGUAGE plpgsql
 SET enable_bitmapscan TO 'off'
 SET enable_seqscan TO 'off'
AS $function$
#variable_conflict use_column
BEGIN
  -- Claims from every instance take turns, so each counts the rows the one before it committed and the caps
  -- hold exactly. A claim is one short statement; the lock ends with its transaction.
  PERFORM pg_advisory_xact_lock(727021);
  RETURN QUERY
  WITH RECURSIVE busy AS MATERIALIZED (
    -- What is in flight, by endpoint. Not a row older than the lease (its worker died, and the sweeper is
    -- about to abandon it), nor one the caller already has an answer for (its log is being written).
    SELECT s.workspace_id, s.endpoint_id, count(*)::integer AS n
      FROM webhook_deliveries s
     WHERE s.status = 'sending' AND s.claimed_at >= p_live_since AND s.id <> ALL (p_answered)
     GROUP BY s.workspace_id, s.endpoint_id
  ),
  busy_workspaces AS MATERIALIZED (
    SELECT b.workspace_id, sum(b.n)::integer AS n FROM busy b GROUP BY b.workspace_id
  ),
  -- The endpoints with pending rows, one index probe each (a loose index scan), with the time their
  -- earliest row is due: from `p_from` (the caller picks it at random) to the end, then from the start, so
  -- that when more endpoints wait than a claim serves, each claim serves a different run of them. The walk
  -- stops at `p_limit` endpoints with a row due now; those with none only pass by, so that a tenant whose
  -- rows all wait for its pace does not stand in another's way, but no more than 256 of them, which bounds
  -- what a claim reads while many tenants wait for their pace.
  pending_endpoints (endpoint_id, due_at, visited, due) AS (
    SELECT f.endpoint_id, f.due_at, 1, (f.due_at <= p_now)::integer
      FROM (
        (SELECT d.endpoint_id, coalesce(d.next_attempt_at, 0) AS due_at FROM webhook_deliveries d
          WHERE d.status = 'pending' AND d.endpoint_id >= p_from
          ORDER BY d.endpoint_id, coalesce(d.next_attempt_at, 0), d.created_at, d.id LIMIT 1)
        UNION ALL
        (SELECT d.endpoint_id, coalesce(d.next_attempt_at, 0) FROM webhook_deliveries d
          WHERE d.status = 'pending'
          ORDER BY d.endpoint_id, coalesce(d.next_attempt_at, 0), d.created_at, d.id LIMIT 1)
        LIMIT 1
      ) f
    UNION ALL
    SELECT f.endpoint_id, f.due_at, w.visited + 1, w.due + (f.due_at <= p_now)::integer
      FROM pending_endpoints w
     CROSS JOIN LATERAL (
       -- From `p_from` on, the next endpoint, else the first one from the start; once past the start, the
       -- next one before `p_from`. Each a range of the index, so an empty one costs a probe.
       (SELECT d.endpoint_id, coalesce(d.next_attempt_at, 0) AS due_at FROM webhook_deliveries d
         WHERE w.endpoint_id >= p_from AND d.status = 'pending' AND d.endpoint_id > w.endpoint_id
         ORDER BY d.endpoint_id, coalesce(d.next_attempt_at, 0), d.created_at, d.id LIMIT 1)
       UNION ALL
       (SELECT d.endpoint_id, coalesce(d.next_attempt_at, 0) FROM webhook_deliveries d
         WHERE d.status = 'pending' AND d.endpoint_id > w.endpoint_id AND d.endpoint_id < p_from
         ORDER BY d.endpoint_id, coalesce(d.next_attempt_at, 0), d.created_at, d.id LIMIT 1)
       UNION ALL
       (SELECT d.endpoint_id, coalesce(d.next_attempt_at, 0) FROM webhook_deliveries d
         WHERE w.endpoint_id >= p_from AND d.status = 'pending' AND d.endpoint_id < p_from
         ORDER BY d.endpoint_id, coalesce(d.next_attempt_at, 0), d.created_at, d.id LIMIT 1)
       LIMIT 1
     ) f
     WHERE w.due < p_limit AND w.visited - w.due < 256
  ),
  -- Each endpoint's fate and room once. A paused or removed endpoint, or a workspace whose webhooks are
  -- off, has its rows settled whatever the caps and the pace say; the others get the room their caps leave.
  fates AS MATERIALIZED (
    SELECT e.id AS endpoint_id, e.workspace_id, e.url, e.secret_enc, e.previous_secret_enc, e.rotating_until,
           pe.due_at, pe.visited,
           CASE WHEN NOT w.webhooks_enabled THEN 'off'
                WHEN e.deleted_at IS NOT NULL OR e.secret_enc IS NULL THEN 'removed'
                WHEN e.status <> 'active' THEN 'paused'
                ELSE 'dial' END AS state,
           CASE WHEN e.consecutive_failures = 0 THEN p_endpoint_cap ELSE 1 END - coalesce(be.n, 0) AS room,
           p_workspace_cap - coalesce(bw.n, 0) AS workspace_room
      FROM pending_endpoints pe
      JOIN webhook_endpoints e ON e.id = pe.endpoint_id
      JOIN workspaces w ON w.id = e.workspace_id
      LEFT JOIN busy be ON be.endpoint_id = e.id
      LEFT JOIN busy_workspaces bw ON bw.workspace_id = e.workspace_id
  ),
  -- Those with rows to take now: the first 128 settled ones in the walk's order, and dialled ones with a row
  -- due and room left. `settle` is each settled endpoint's share of the claim's settling: together they
  -- settle at most 128 rows, which bounds the statement however many endpoints are paused.
  targets AS MATERIALIZED (
    SELECT f.*, count(*) OVER () AS open,
           GREATEST(1, 128 / NULLIF(count(*) FILTER (WHERE f.state <> 'dial') OVER (), 0)) AS settle
      FROM (SELECT f.*, row_number() OVER (PARTITION BY f.state = 'dial' ORDER BY f.visited) AS nth
              FROM fates f) f
     WHERE (f.state <> 'dial' AND f.nth <= 128)
        OR (f.state = 'dial' AND f.due_at <= p_now AND f.room > 0 AND f.workspace_room > 0)
  ),
  -- Each such endpoint's pending rows in the index's order (due now first): a dialled endpoint's only up to
  -- now, no more than its room and its workspace's, nor than its share of the claim, so that one tenant
  -- cannot take a whole claim while others wait. Settled rows share one batch of the claim's size.
  picked AS (
    SELECT r.*, t.state, t.settle FROM targets t
     CROSS JOIN LATERAL (
       SELECT d.id, d.event_id, d.event_type, d.endpoint_id, d.workspace_id, d.created_at
         FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.endpoint_id = t.endpoint_id
          AND coalesce(d.next_attempt_at, 0) <= CASE WHEN t.state = 'dial' THEN p_now
                                                     ELSE 9223372036854775807 END
        ORDER BY coalesce(d.next_attempt_at, 0), d.created_at, d.id
        LIMIT CASE WHEN t.state <> 'dial' THEN t.settle
                   ELSE LEAST(t.room, t.workspace_room, GREATEST(1, p_limit / t.open)) END
        FOR UPDATE SKIP LOCKED
     ) r
  ),
  -- A workspace's endpoints together stay within its room; then the oldest rows up to the limit.
  chosen AS (
    SELECT r.id FROM (
      SELECT p.id, p.created_at,
             row_number() OVER (PARTITION BY p.workspace_id ORDER BY p.created_at, p.id) <= t.workspace_room
               AS has_room
        FROM picked p JOIN targets t ON t.endpoint_id = p.endpoint_id
       WHERE p.state = 'dial'
    ) r
     WHERE r.has_room
     ORDER BY r.created_at, r.id
     LIMIT p_limit
  ),
  verdicts AS (
    SELECT p.id,
           CASE WHEN p.state <> 'dial' THEN p.state
                WHEN p.id IN (SELECT c.id FROM chosen c) THEN 'dial'
                ELSE 'deferred' END AS verdict
      FROM picked p
  ),
  settled AS (
    UPDATE webhook_deliveries d
       SET status = CASE v.verdict WHEN 'dial' THEN 'sending'
                                   WHEN 'paused' THEN 'not_sent_paused'
                                   ELSE 'not_sent_removed' END,
           claimed_at = p_now,
           claimed_by = p_worker
      FROM verdicts v
     WHERE d.id = v.id AND v.verdict IN ('dial', 'paused', 'removed')
  ),
  dropped AS (
    DELETE FROM webhook_deliveries d USING verdicts v WHERE d.id = v.id AND v.verdict = 'off'
  )
  SELECT o.* FROM (
    SELECT p.id, p.event_id, p.event_type, p.endpoint_id, t.url, t.secret_enc, t.previous_secret_enc,
           t.rotating_until, ev.body, v.verdict, NULL::bigint
      FROM verdicts v
      JOIN picked p ON p.id = v.id
      JOIN targets t ON t.endpoint_id = p.endpoint_id
      -- Only an attempt needs the body: a settled row's key is null, which the index is not probed for
      -- (a join condition beside the key was checked after the probe).
      LEFT JOIN events ev ON ev.id = CASE WHEN v.verdict = 'dial' THEN p.event_id END
     ORDER BY p.created_at, p.id
  ) o
  UNION ALL
  -- Only an endpoint or workspace that had a row due counts as held back: one whose rows all wait for
  -- their time would have the caller claim again after every attempt for nothing.
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'capped', NULL
   WHERE EXISTS (SELECT FROM fates f
                  WHERE f.state = 'dial' AND f.due_at <= p_now AND (f.room <= 0 OR f.workspace_room <= 0))
  UNION ALL
  -- A settled endpoint that gave its whole share may have more rows to settle, and one past the first 128
  -- gave none: claim again at once.
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'unsettled', NULL
   WHERE EXISTS (SELECT FROM picked p WHERE p.state <> 'dial'
                  GROUP BY p.endpoint_id, p.settle HAVING count(*) >= p.settle)
      OR (SELECT count(*) FROM fates f WHERE f.state <> 'dial') > 128
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'unvisited', NULL
   WHERE (SELECT max(w.visited - w.due) FROM pending_endpoints w) >= 256
  UNION ALL
  SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'later', l.at
    FROM (SELECT min(f.due_at) AS at FROM fates f WHERE f.state = 'dial' AND f.due_at > p_now) l
   WHERE l.at IS NOT NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.record_webhook_successes(p_ids text[], p_http_statuses integer[], p_latencies double precision[], p_excerpts text[])
 RETURNS void
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
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
$function$
;
CREATE OR REPLACE FUNCTION public.svc_announce_credential_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM pg_notify('svc_credentials', TG_ARGV[0] || ':' || OLD.id);
  RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.svc_next_auth_version()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  NEW.auth_version := nextval('svc_auth_versions');
  RETURN NEW;
END
$function$
;
CREATE OR REPLACE FUNCTION public.webhook_delivery_id(p_event_id text, p_endpoint_id text)
 RETURNS text
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
  SELECT 'dlv_' || left(encode(sha256(convert_to(p_event_id || ' ' || p_endpoint_id, 'UTF8')), 'hex'), 24)
$function$
;

-- Triggers
CREATE TRIGGER api_keys_announce_change AFTER DELETE OR UPDATE ON public.api_keys FOR EACH ROW EXECUTE FUNCTION svc_announce_credential_change('key');
CREATE TRIGGER api_keys_auth_version BEFORE INSERT OR UPDATE ON public.api_keys FOR EACH ROW EXECUTE FUNCTION svc_next_auth_version();
CREATE TRIGGER members_announce_change AFTER DELETE OR UPDATE ON public.members FOR EACH ROW EXECUTE FUNCTION svc_announce_credential_change('member');
CREATE TRIGGER members_auth_version BEFORE INSERT OR UPDATE ON public.members FOR EACH ROW EXECUTE FUNCTION svc_next_auth_version();
CREATE TRIGGER workspaces_announce_change AFTER DELETE OR UPDATE ON public.workspaces FOR EACH ROW EXECUTE FUNCTION svc_announce_credential_change('workspace');
CREATE TRIGGER workspaces_auth_version BEFORE INSERT OR UPDATE ON public.workspaces FOR EACH ROW EXECUTE FUNCTION svc_next_auth_version();
