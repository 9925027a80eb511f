import pg from 'pg';
import type { Queryable } from './db.js';
import { KEY_CHECK_SLOT, keyUnchangedSql } from './queries/key-principal.js';

/** The held copy of a key no longer matches the database (revoked, or its member or workspace changed). */
export class KeyChanged extends Error {
  override readonly name = 'KeyChanged';
}

export interface KeyCheckedQueryable extends Queryable {
  /** Resolves once the database has confirmed the key (at once when a statement already did); else KeyChanged. */
  confirm(): Promise<void>;
  readonly confirmed: boolean;
  /**
   * A statement with a KEY_CHECK_SLOT was sent and failed without an answer (a lost connection): it may
   * have written, so the call must not run again.
   */
  readonly mayHaveWritten: boolean;
  /** The connection itself once the key is confirmed (statements then go straight to it), else undefined. */
  passThrough(): Queryable | undefined;
}

/**
 * The connection a call authorized from a held copy of its key works with (PostgreSQL, see
 * store/credential-cache.ts). Its first statement carries the check that the key still reads exactly as
 * held: a SELECT is filtered by the check, and a write that has a KEY_CHECK_SLOT gets the check there, so
 * the key is confirmed by the same statement, on the same snapshot, that reads or writes the rows, and the
 * call costs the one round trip of its statement (one that answers no row asks the check alone once more).
 * Any other first statement is preceded by the check on its own. Until confirmed, nothing is answered
 * (see http/confirmed-call.ts).
 */
export function keyChecked(db: Queryable, keyId: string, version: string): KeyCheckedQueryable {
  let confirmed = false;
  let mayHaveWritten = false;
  const confirm = async () => {
    if (confirmed) return;
    const rows = await db.query(keyUnchangedSql(1, 2), [keyId, version]);
    if (rows.length === 0) throw new KeyChanged();
    confirmed = true;
  };
  return {
    get confirmed() {
      return confirmed;
    },
    get mayHaveWritten() {
      return mayHaveWritten;
    },
    confirm,
    passThrough: () => (confirmed ? db : undefined),
    async query<Row extends object>(sql: string, params: readonly unknown[] = []): Promise<Row[]> {
      if (confirmed) return db.query<Row>(sql, params);
      const slotted = sql.includes(KEY_CHECK_SLOT);
      if (!slotted && !/^\s*select\b/i.test(sql)) {
        await confirm();
        return db.query<Row>(sql, params);
      }
      // The query's rows (or its write) only when the key still reads as held (the check runs once, before
      // any row is read or written). No row is ambiguous, the key changed or the statement has none: the
      // check alone tells which.
      let rows: Row[];
      try {
        rows = await db.query<Row>(checkedSql(sql, params.length), [...params, keyId, version]);
      } catch (error) {
        // Refused by the server (PostgreSQL, the only backend with held keys), a statement writes nothing;
        // otherwise its outcome is unknown.
        mayHaveWritten ||= slotted && !(error instanceof pg.DatabaseError);
        throw error;
      }
      if (rows.length === 0) await confirm();
      confirmed = true;
      return rows;
    },
    async exec(sql: string) {
      await confirm();
      await db.exec(sql);
    },
  };
}

/** The checked form of each statement text, made once: the texts are the few first statements of a call. */
const checkedForms = new Map<string, string>();
const MAX_CHECKED_FORMS = 100;

/**
 * A read is filtered as a whole; a write with a slot gets the check in the slot's place (a data-modifying
 * WITH cannot be wrapped). Split rather than `replace`, whose replacement string gives `$&` and `$$` a
 * meaning; exactly one slot, so that no second write is left unguarded.
 */
function checkedSql(sql: string, paramCount: number): string {
  const known = checkedForms.get(sql);
  if (known !== undefined) return known;
  const check = `EXISTS (${keyUnchangedSql(paramCount + 1, paramCount + 2)})`;
  const parts = sql.split(KEY_CHECK_SLOT);
  if (parts.length > 2) throw new Error('a statement carries at most one KEY_CHECK_SLOT');
  const checked = parts.length === 2 ? parts.join(check) : `SELECT s.* FROM (${sql}) s WHERE ${check}`;
  if (checkedForms.size < MAX_CHECKED_FORMS) checkedForms.set(sql, checked);
  return checked;
}
