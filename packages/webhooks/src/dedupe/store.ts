/**
 * Where claimed event ids are remembered. Implement it over Redis, a database, etc.; `claim` must be
 * atomic (e.g. Redis `SET key 1 NX PX <ttl>`), so two concurrent deliveries of one event cannot both win.
 * The store decides how long a claim lasts.
 */
export interface DuplicateStore {
  /** Records `key` unless a live record exists; resolves `true` when this call recorded it. */
  claim(key: string): Promise<boolean>;
  /** Forgets `key`, so that a later delivery of the same event runs again (used after a handler failed). */
  release(key: string): Promise<void>;
}
