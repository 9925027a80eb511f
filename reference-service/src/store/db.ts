/**
 * The one database interface the rest of the service sees. Two adapters implement it (PGlite, PostgreSQL)
 * so that queries are written once, in plain SQL with `$1` parameters, and run unchanged on both.
 */
export interface Queryable {
  query<Row extends object>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** A script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs `fn` on one connection holding a session-level advisory lock (see migrate.ts). */
  withAdvisoryLock<T>(key: number, fn: (conn: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls `onNotify` with the payload of every NOTIFY on `channel`, and with '' after a reconnection (some
   * may have been missed; listeners also poll). Resolves once listening; the returned function stops it.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /**
   * The same database for callers someone is waiting on (API requests): a statement or section that gets
   * no connection within `ms`, or whose connection cannot be opened, fails with DatabaseUnavailableError
   * before any of it ran. What has started is never cut short. Background work (delivery, the relay, the
   * credential cache) keeps the unbounded wait, so a slow database delays it instead of failing it.
   */
  withWaitLimit(ms: number): Db;
  /**
   * The same database waiting as long as it takes: for what must be written once a request's operation has
   * run (its idempotency record), where giving up would leave the operation done and unrecorded.
   */
  withoutWaitLimit(): Db;
  /** How loaded the database side is right now (for /metrics): statements waiting, connections busy. */
  pressure(): { waiting: number; busy: number };
  /** PGlite only: its thread's heap and the database's WebAssembly memory, in bytes (the benchmark's). */
  memory?(): Promise<Record<string, number>>;
  readonly kind: 'pglite' | 'postgres';
}

/**
 * The members of `row` as column names. The types keep them to a table's columns; the check keeps a
 * member that came from outside (a spread body, say) from ever becoming statement text.
 */
export function columnNames(row: object): string[] {
  const columns = Object.keys(row);
  const odd = columns.find((column) => !/^[a-z_][a-z0-9_]*$/.test(column));
  if (odd !== undefined) throw new Error(`not a column name: ${JSON.stringify(odd)}`);
  return columns;
}

/**
 * Inserts `row` into `table`, one column per member, named as the row's type names them: pass an object
 * literal of that type, where another member does not compile. `tail` follows the values (ON CONFLICT).
 */
export async function insertRow(db: Queryable, table: string, row: object, tail = ''): Promise<void> {
  const columns = columnNames(row);
  const slots = columns.map((_, index) => `$${index + 1}`);
  await db.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${slots.join(', ')})${tail}`, [
    ...Object.values(row),
  ]);
}

/**
 * The database gave no connection in time, could not be reached, or cut a statement short (a statement or
 * lock timeout, a cancel): nothing of the statement or section ran, or it was rolled back. The API answers
 * it 503 `service_unavailable`.
 */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

/** disk_full: a file could not be extended or written for want of space (the data dir's or the log's). */
const NO_SPACE = '53100';

/**
 * A statement refused for a full disk becomes DatabaseUnavailableError: nothing of it was written, and it
 * may succeed once space is freed, which is what a 503 says. Other errors are returned as they are.
 */
export function unavailableIfNoSpace(error: unknown): unknown {
  if ((error as { code?: unknown } | null)?.code !== NO_SPACE) return error;
  return new DatabaseUnavailableError('the database has no space left to write', { cause: error });
}
