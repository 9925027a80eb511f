-- A counter of what authorizing a key reads: the key itself, its member and its workspace. It goes up with
-- every change to any of the three, in the changing transaction, so a copy of a key held by an instance
-- (PostgreSQL, src/store/credential-cache.ts) is confirmed by one primary-key lookup of its counter,
-- where a digest of the three rows had to join and hash them on every call.
ALTER TABLE api_keys ADD COLUMN auth_version bigint NOT NULL DEFAULT 1;

CREATE FUNCTION svc_next_key_version() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  NEW.auth_version := OLD.auth_version + 1;
  RETURN NEW;
END
$$;

CREATE FUNCTION svc_bump_key_versions() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF TG_ARGV[0] = 'member' THEN
    UPDATE api_keys SET auth_version = auth_version + 1 WHERE member_id = OLD.id;
  ELSE
    UPDATE api_keys SET auth_version = auth_version + 1 WHERE workspace_id = OLD.id;
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_next_version BEFORE UPDATE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION svc_next_key_version();
CREATE TRIGGER members_bump_key_versions AFTER UPDATE ON members
  FOR EACH ROW EXECUTE FUNCTION svc_bump_key_versions('member');
CREATE TRIGGER workspaces_bump_key_versions AFTER UPDATE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION svc_bump_key_versions('workspace');
CREATE INDEX api_keys_workspace ON api_keys (workspace_id);
