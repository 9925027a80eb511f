-- An invited member has no password until the invite is accepted. Such a row no longer holds its e-mail:
-- a stranger's invite must not keep the address's owner from signing up, and inviting must not tell
-- whether an address has an account somewhere. The e-mail stays unique among the accounts that can sign
-- in; an invite for an address that got one meanwhile is refused when it is accepted.
DROP INDEX members_email_live;
CREATE UNIQUE INDEX members_email_live ON members (email) WHERE removed_at IS NULL AND password_hash IS NOT NULL;
