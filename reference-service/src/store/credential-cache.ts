import { performance } from 'node:perf_hooks';
import type { Db, Queryable } from './db.js';
import { getKeyPrincipal, type KeyPrincipalRow } from './queries/key-principal.js';

/** The channel migration 0011's triggers announce every change of a key, member or workspace on. */
export const CREDENTIALS_CHANNEL = 'svc_credentials';

/** A bound on what the cache holds, whatever the number of keys in use. */
const MAX_ENTRIES = 10_000;
/**
 * A backstop only (every announced change drops its entries long before), on the monotonic clock, which a
 * wall clock stepped back cannot stretch.
 */
const MAX_AGE_MS = 60_000;

export interface CredentialCache {
  /** The key's row with its member and workspace: from memory when held, else from the database. */
  lookup(db: Queryable, keyId: string): Promise<KeyPrincipalRow | undefined>;
  /** How many lookups were answered from memory and from the database (for the benchmark and tests). */
  stats(): { hits: number; misses: number; size: number; listening: boolean };
  stop(): Promise<void>;
}

/**
 * Resolving an API key takes one statement; this makes it none for a key seen recently.
 *
 * PGlite only. A revoked key must be refused at once: the database announces every change of a key, its
 * member or its workspace at commit (LISTEN/NOTIFY, migration 0011), and the entries concerned are dropped as
 * the announcement arrives. On PGlite it arrives with the answer to the COMMIT itself, in this process (the
 * data-dir lock makes it the only one), so before any later request is read. A read that raced an
 * announcement is not kept (the generation check). The secret itself is checked on every call, against the
 * stored hash.
 *
 * PostgreSQL holds nothing: an announcement reaches the other instances a moment after the commit (on a
 * loaded machine the tests saw a request slip in first), so every call reads its key with one prepared
 * statement, and a key revoked on any instance is refused by the very next call everywhere.
 */
export async function startCredentialCache(db: Db): Promise<CredentialCache> {
  const entries = new Map<string, { row: KeyPrincipalRow; at: number }>();
  let generation = 0;
  let hits = 0;
  let misses = 0;

  const forget = (payload: string) => {
    generation++;
    const [kind, id] = [payload.slice(0, payload.indexOf(':')), payload.slice(payload.indexOf(':') + 1)];
    if (kind === 'key') {
      entries.delete(id);
      return;
    }
    if (kind !== 'member' && kind !== 'workspace') {
      // Not one of ours: drop everything rather than guess.
      entries.clear();
      return;
    }
    for (const [keyId, { row }] of entries) {
      if ((kind === 'member' ? row.member_id : row.workspace_id) === id) entries.delete(keyId);
    }
  };
  // On PostgreSQL nothing listens, so nothing is kept: every lookup reads the database (see above).
  const stopListening = db.kind === 'pglite' ? await db.listen(CREDENTIALS_CHANNEL, forget) : async () => {};
  let listening = db.kind === 'pglite';

  return {
    async lookup(conn, keyId) {
      const held = entries.get(keyId);
      if (held && listening && performance.now() - held.at < MAX_AGE_MS) {
        hits++;
        return held.row;
      }
      misses++;
      const before = generation;
      const row = await getKeyPrincipal(conn, keyId);
      if (row && listening && generation === before && row.revoked_at === null) {
        entries.delete(keyId);
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
        entries.set(keyId, { row, at: performance.now() });
      }
      return row;
    },
    stats: () => ({ hits, misses, size: entries.size, listening }),
    async stop() {
      listening = false;
      entries.clear();
      await stopListening();
    },
  };
}
