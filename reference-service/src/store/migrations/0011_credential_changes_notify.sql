-- API keys are resolved from a per-process cache (src/http/credential-cache.ts). Any change to a key, its
-- member or its workspace, by any instance or by hand, announces itself on `svc_credentials` at commit, so
-- that every instance drops what it holds before it answers another request with it.
CREATE FUNCTION svc_announce_credential_change() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  PERFORM pg_notify('svc_credentials', TG_ARGV[0] || ':' || OLD.id);
  RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_announce_change AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION svc_announce_credential_change('key');
CREATE TRIGGER members_announce_change AFTER UPDATE OR DELETE ON members
  FOR EACH ROW EXECUTE FUNCTION svc_announce_credential_change('member');
CREATE TRIGGER workspaces_announce_change AFTER UPDATE OR DELETE ON workspaces
  FOR EACH ROW EXECUTE FUNCTION svc_announce_credential_change('workspace');
