import { CREDENTIALS_CHANNEL } from '../../store/credential-cache.js';
import type { Db } from '../../store/db.js';

/** What a stream was opened with: a change of any of these re-checks it. */
export interface StreamCredentials {
  keyId: string | undefined;
  memberId: string;
  workspaceId: string;
}

/** Which of a stream's credentials an announcement names, by its kind (migration 0011's trigger argument). */
const CHANGED_FIELD: ReadonlyMap<string, keyof StreamCredentials> = new Map([
  ['key', 'keyId'],
  ['member', 'memberId'],
  ['workspace', 'workspaceId'],
]);

/**
 * Re-checks open listen streams as soon as the database announces a change of the key, member or
 * workspace one was opened with (migration 0011's triggers: `kind:id` on `svc_credentials`), so that a
 * revoked key's stream ends then rather than at its next periodic check, which is only the backstop
 * (a notification can be lost with its connection). Listens from the first stream on, once per process.
 */
export class CredentialWatch {
  readonly #streams = new Map<symbol, { credentials: StreamCredentials; check: () => void }>();
  #listening: Promise<() => Promise<void>> | undefined;

  constructor(private readonly db: Db) {}

  /** Calls `check` on every announced change that concerns `credentials`; the answer stops it. */
  watch(credentials: StreamCredentials, check: () => void): () => void {
    if (this.#listening === undefined) {
      // Not awaited: until it listens (or if it cannot), the periodic check covers the stream.
      this.#listening = this.db.listen(CREDENTIALS_CHANNEL, (payload) => this.#changed(payload));
      this.#listening.catch(() => {});
    }
    const id = Symbol('stream');
    this.#streams.set(id, { credentials, check });
    return () => this.#streams.delete(id);
  }

  async stop(): Promise<void> {
    const listening = this.#listening;
    this.#listening = undefined;
    this.#streams.clear();
    const unlisten = await listening?.catch(() => undefined);
    await unlisten?.();
  }

  #changed(payload: string): void {
    const colon = payload.indexOf(':');
    // An empty payload follows a reconnection (changes may have been missed): every stream is checked.
    const field = colon < 0 ? undefined : CHANGED_FIELD.get(payload.slice(0, colon));
    const id = payload.slice(colon + 1);
    for (const { credentials, check } of this.#streams.values()) {
      // After this turn: on PGlite the credential cache drops the changed key on the same notification.
      if (field === undefined || credentials[field] === id) setImmediate(check);
    }
  }
}
