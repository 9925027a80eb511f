-- Versions of what authorizing an API key reads: the key, its member and its workspace. Each row takes a
-- new number from one sequence when it is written, in the writing transaction, so a number is never
-- given twice, to any row, ever. An instance holding a copy of a key (PostgreSQL, see
-- src/store/credential-cache.ts) confirms it by reading the three rows' numbers by primary key, where a
-- digest of the three rows had to be recomputed from their JSON on every call. A change that fires no row
-- trigger (a table rewrite by a later migration, a restore with triggers disabled) must take new numbers
-- itself: `UPDATE <table> SET auth_version = DEFAULT`.
CREATE SEQUENCE svc_auth_versions;

ALTER TABLE api_keys ADD COLUMN auth_version bigint NOT NULL DEFAULT nextval('svc_auth_versions');
ALTER TABLE members ADD COLUMN auth_version bigint NOT NULL DEFAULT nextval('svc_auth_versions');
ALTER TABLE workspaces ADD COLUMN auth_version bigint NOT NULL DEFAULT nextval('svc_auth_versions');

CREATE FUNCTION svc_next_auth_version() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  NEW.auth_version := nextval('svc_auth_versions');
  RETURN NEW;
END
$$;

CREATE TRIGGER api_keys_auth_version BEFORE INSERT OR UPDATE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION svc_next_auth_version();
CREATE TRIGGER members_auth_version BEFORE INSERT OR UPDATE ON members
  FOR EACH ROW EXECUTE FUNCTION svc_next_auth_version();
CREATE TRIGGER workspaces_auth_version BEFORE INSERT OR UPDATE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION svc_next_auth_version();
