import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { DatabaseUnavailableError, type Db, type Queryable, unavailableIfNoSpace } from './db.js';
import { EmbeddedDatabaseError, initialiseDataDir } from './pglite-init.js';
import { PreparedStatements, STALE_PREPARED_STATEMENT } from './pglite-prepared.js';
import { type Answer, encodeScript, encodeStatement } from './pglite-wire.js';
import { type EmbeddedThread, startEmbeddedThread, type ThreadMessage } from './pglite-worker.js';

/** How often a broken database is opened again, at most, while requests keep coming. */
const REOPEN_EVERY_MS = 1_000;

/**
 * PGlite on a thread of its own (pglite-thread.js, started by pglite-worker.ts): PostgreSQL compiled to
 * WebAssembly runs synchronously, and on the main thread every statement would hold up the HTTP work and
 * the delivery worker. Statements travel as wire-protocol bytes, encoded and decoded here with the `pg`
 * driver's codec (pglite-wire.ts), so values and errors read as on PostgreSQL and the thread does nothing
 * but the database; they are sent as soon as made and run in that order. PGlite has a single session:
 * while a transaction is open, statements from outside it wait here, so row locks and unique-constraint
 * waits behave as on PostgreSQL with one client at a time. `threadHeapLimitMb` caps the thread's heap (the
 * tests use it to show that the thread keeps nothing of what it ran).
 *
 * A database that can no longer serve (a write-ahead log not written for want of space leaves PGlite inside
 * a transaction it cannot end; its thread may die) is broken, not closed: its statements fail with
 * DatabaseUnavailableError (503), and the data dir is opened again on a new thread at most once a second
 * while statements keep coming, replaying the log as after a crash, so that once the disk has room the
 * service goes on without a restart.
 */
export async function openPglite(
  dataDir: string | undefined,
  options: { threadHeapLimitMb?: number; snapshot?: Uint8Array | undefined } = {},
): Promise<Db> {
  if (dataDir !== undefined && !existsSync(join(dataDir, 'PG_VERSION'))) await initialiseDataDir(dataDir);
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let closed: EmbeddedDatabaseError | undefined;
  let broken: DatabaseUnavailableError | undefined;
  let reopening: Promise<void> | undefined;
  let triedAt = 0;

  const start = () =>
    startEmbeddedThread(dataDir, {
      threadHeapLimitMb: options.threadHeapLimitMb,
      snapshot: options.snapshot,
      onNotify(channel, payload) {
        for (const onNotify of listeners.get(channel) ?? []) onNotify(payload);
      },
      onLost: (error) => breakDown(error),
    });
  let thread: EmbeddedThread = await start();

  /** What waits on the current thread fails with 503; the next use opens again. */
  function breakDown(cause: Error): void {
    if (closed || broken) return;
    broken = new DatabaseUnavailableError('the embedded database stopped and is being opened again', {
      cause,
    });
    thread.stop(broken);
    void thread.terminate();
  }

  /** Opens the data dir again on a new thread (never an in-memory database, which would come back empty). */
  async function reopen(): Promise<void> {
    if (dataDir === undefined || Date.now() - triedAt < REOPEN_EVERY_MS) return;
    triedAt = Date.now();
    let next: EmbeddedThread;
    try {
      next = await start();
    } catch {
      return;
    }
    thread = next;
    statements = new PreparedStatements();
    broken = undefined;
    for (const [channel, set] of listeners) {
      // The channel names are the service's own, never input; quoting keeps them identifiers all the same.
      await session.exec(`LISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
      // Notifications sent while it was down are lost: listeners are told to look for themselves.
      for (const onNotify of set) queueMicrotask(() => onNotify(''));
    }
  }

  function send(message: ThreadMessage): Promise<Answer> {
    if (closed) return Promise.reject(closed);
    return broken ? reopenThenSend(message) : thread.send(message);
  }
  async function reopenThenSend(message: ThreadMessage): Promise<Answer> {
    reopening ??= reopen().finally(() => {
      reopening = undefined;
    });
    await reopening;
    if (closed) throw closed;
    if (broken) throw broken;
    return thread.send(message);
  }
  function rowsOf({ rows, error }: Answer): object[] {
    if (error) throw unavailableIfNoSpace(error);
    return rows;
  }
  let statements = new PreparedStatements();
  async function runStatement(sql: string, params: readonly unknown[]): Promise<object[]> {
    const prepared = statements.for(sql);
    const answer = await send({ bytes: encodeStatement(sql, params, prepared) });
    if (prepared?.parse) statements.settle(sql, answer.parsed);
    if (answer.error?.code !== STALE_PREPARED_STATEMENT || !prepared) return rowsOf(answer);
    // A table it reads all columns of changed under it: from now on this text runs unnamed.
    statements.forget(sql);
    return rowsOf(await send({ bytes: encodeStatement(sql, params) }));
  }
  const session: Queryable = {
    query: <Row extends object>(sql: string, params: readonly unknown[] = []) =>
      runStatement(sql, params) as Promise<Row[]>,
    exec: async (sql: string) => {
      rowsOf(await send({ bytes: encodeScript(sql) }));
    },
  };

  // Ends the open transaction. Were the single session left inside it, every later statement would join a
  // transaction that never commits: the database is broken down instead, and opened again.
  async function end(command: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const { error, idle } = await send({ bytes: encodeScript(command) });
    if (!idle) {
      breakDown(
        new EmbeddedDatabaseError(`the embedded database stayed inside a transaction after ${command}`),
      );
    }
    if (error) throw unavailableIfNoSpace(error);
    if (broken) throw broken;
  }

  // The open transaction's end, while one is open: statements from outside it wait for it. Each waiter
  // checks again and sends in the same turn, so nothing slips in between a transaction's turns.
  let open: Promise<void> | undefined;
  const db: Db = {
    kind: 'pglite',
    async query<Row extends object>(sql: string, params: readonly unknown[] = []) {
      while (open) await open;
      return session.query<Row>(sql, params);
    },
    async exec(sql: string) {
      while (open) await open;
      return session.exec(sql);
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      while (open) await open;
      let closed!: () => void;
      open = new Promise((resolve) => (closed = resolve));
      try {
        await session.exec('BEGIN');
        let result: T;
        try {
          result = await fn(session);
        } catch (error) {
          await end('ROLLBACK').catch(() => {});
          throw error;
        }
        await end('COMMIT');
        return result;
      } finally {
        open = undefined;
        closed();
      }
    },
    memory() {
      if (closed) return Promise.reject(closed);
      return thread.memory();
    },
    // One statement runs on the thread at a time; the others sent are queued behind it.
    pressure: () => ({ waiting: Math.max(0, thread.waiting - 1), busy: thread.waiting > 0 ? 1 : 0 }),
    // One process owns a PGlite data dir (see data-dir-lock.ts), so there is nobody to lock out.
    withAdvisoryLock: (_key, fn) => fn(db),
    async listen(channel, onNotify) {
      let set = listeners.get(channel);
      if (set === undefined) {
        set = new Set();
        listeners.set(channel, set);
        await db.exec(`LISTEN ${pg.escapeIdentifier(channel)}`);
      }
      set.add(onNotify);
      return async () => {
        set.delete(onNotify);
        if (set.size > 0 || listeners.get(channel) !== set) return;
        listeners.delete(channel);
        await db.exec(`UNLISTEN ${pg.escapeIdentifier(channel)}`).catch(() => {});
      };
    },
    async close() {
      if (closed) return;
      // An open transaction ends first; statements made from now on are refused.
      while (open) await open;
      await reopening;
      const closing = broken ? Promise.resolve() : thread.send({ close: true });
      closed = new EmbeddedDatabaseError('the embedded database is closed');
      try {
        await closing;
      } finally {
        thread.stop(closed);
        await thread.terminate();
      }
    },
    // One in-process session: there is no connection to wait for, only the statement or transaction ahead.
    withWaitLimit: () => db,
    withoutWaitLimit: () => db,
  };
  return db;
}
