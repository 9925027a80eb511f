-- Sign-in guessing limits (issue 15). Failed attempts spend tokens of buckets in outbound_budgets, the
-- table of every token bucket (bucket names starting with `guess:`), so that a restart forgets nothing and
-- instances sharing the database share the limits.

-- A TOTP code is accepted once per member: the last accepted 30-second time step (NULL: none yet).
ALTER TABLE members ADD COLUMN totp_last_step BIGINT;

-- Client addresses that have signed in to an account (the account as a hash of its e-mail, so unknown
-- e-mails behave the same), and when last. The per-account password limit does not apply to them, so a
-- stranger who spends that budget cannot lock the owner out from where they usually sign in.
CREATE TABLE sign_in_known_addresses (
  account TEXT NOT NULL,
  address TEXT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  PRIMARY KEY (account, address)
);
