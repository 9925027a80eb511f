-- Issue 40, item 2: deliveries are paced per workspace and per destination host when an event fans out
-- (store/queries/events.ts). Each endpoint keeps the host its deliveries go to, as the contract's
-- `destinationHost` makes it (lower case, no trailing dot, no port), so that the fan-out groups its rows by
-- host without parsing a URL per row. NULL where no per-host rule counts: relay listeners (`listen://`) and
-- the local receivers of the local-development opt-in.

ALTER TABLE webhook_endpoints ADD COLUMN host TEXT;

-- Endpoints made before this migration: their URLs passed the URL rules (https or a local receiver, no
-- credentials, a hostname or a local address), so the hostname is what follows the scheme up to the port,
-- path, query or fragment.
UPDATE webhook_endpoints
   SET host = NULLIF(rtrim(lower(substring(url FROM '^https?://([^/:?#]+)')), '.'), '')
 WHERE url ~* '^https?://';
UPDATE webhook_endpoints SET host = NULL WHERE host IN ('localhost', '127.0.0.1');
