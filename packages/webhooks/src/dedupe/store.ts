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
  /**
   * Optional, with `isDone`: records that the handlers of `key`'s event succeeded. A store shared by
   * several instances that has both lets a duplicate reaching one instance while the first delivery still
   * runs on another be refused as in progress (409), instead of acknowledged before anyone handled it.
   */
  markDone?(key: string): Promise<void>;
  /** Optional, with `markDone`: whether the handlers of `key`'s event have succeeded. */
  isDone?(key: string): Promise<boolean>;
}
