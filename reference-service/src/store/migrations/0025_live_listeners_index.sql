-- The relay's sweep (store/queries/listeners.ts, removeAbandonedListeners) runs every minute on every
-- instance and looks for listeners whose stream has been gone too long. Removed endpoints and listeners
-- stay rows for the retention window, so without an index the sweep read the whole endpoints table, every
-- tenant's, once a minute. Only live listeners are indexed: a handful per workspace. Neither the key nor the
-- condition names `listener_seen_at`, which every open stream rewrites every few seconds: those updates stay
-- heap-only (HOT), and their old versions go without a vacuum, which PGlite never runs on this table.
CREATE INDEX webhook_endpoints_live_listeners ON webhook_endpoints (id)
  WHERE url = 'listen://svc-webhooks' AND deleted_at IS NULL;
