import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Db, Queryable } from './db.js';
import { EmbeddedDatabaseError, initialiseDataDir } from './pglite-init.js';
import { PreparedStatements, STALE_PREPARED_STATEMENT } from './pglite-prepared.js';
import { type Answer, decodeAnswer, encodeScript, encodeStatement } from './pglite-wire.js';

export { EmbeddedDatabaseError };

const THREAD_YOUNG_GENERATION_MB = 4;

type Reply = {
  id: number;
  bytes?: Uint8Array;
  memory?: Record<string, number>;
  error?: { message: string };
};

/**
 * PGlite on a thread of its own (src/store/pglite-thread.js): PostgreSQL compiled to WebAssembly runs
 * synchronously, so on the main thread every statement would hold up the HTTP work and the delivery
 * worker's requests. Here the two run side by side. Statements travel as wire-protocol bytes, encoded and
 * decoded on this side with the `pg` driver's codec (pglite-wire.ts), so values and errors read as on the
 * PostgreSQL backend and the database's thread spends its time on nothing but the database. Statements
 * are sent as soon as they are made, and the thread runs them in that order without waiting for this
 * side to read each answer. PGlite has a single session: while a transaction is open, statements from
 * outside it wait here, so row locks and unique-constraint waits behave as on PostgreSQL with one client
 * at a time. BIGINT columns are read as numbers. `threadHeapLimitMb` caps the thread's JavaScript heap (the
 * tests use it to show that the thread keeps nothing of what it ran).
 */
export async function openPglite(
  dataDir: string | undefined,
  options: { threadHeapLimitMb?: number; snapshot?: Uint8Array | undefined } = {},
): Promise<Db> {
  if (dataDir !== undefined && !existsSync(join(dataDir, 'PG_VERSION'))) await initialiseDataDir(dataDir);
  const thread = new Worker(new URL('./pglite-thread.js', import.meta.url), {
    workerData: { dataDir, snapshot: options.snapshot },
    resourceLimits: {
      // The thread only hands bytes over: a small young generation is plenty, and what a larger one
      // grows to after a burst stays resident.
      maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB,
      ...(options.threadHeapLimitMb === undefined
        ? {}
        : { maxOldGenerationSizeMb: options.threadHeapLimitMb }),
    },
  });
  const pending = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  const memoryWaiters = new Map<number, (memory: Record<string, number>) => void>();
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let nextId = 1;
  let stopped: Error | undefined;

  // The thread keeps the process alive only while a batch is waiting for it.
  const settle = (id: number) => {
    const waiter = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) thread.unref();
    return waiter;
  };
  const failAll = (error: Error) => {
    stopped ??= error;
    for (const id of [...pending.keys()]) settle(id)?.reject(error);
  };

  await new Promise<void>((resolve, reject) => {
    const onFirst = (message: { ready?: boolean; failed?: { message: string } }) => {
      thread.off('error', reject);
      if (message.failed) reject(new EmbeddedDatabaseError(message.failed.message));
      else resolve();
    };
    thread.once('message', onFirst);
    thread.once('error', reject);
  });

  thread.on('message', (reply: Reply) => {
    if (reply.memory) {
      memoryWaiters.get(reply.id)?.(reply.memory);
      memoryWaiters.delete(reply.id);
      settle(reply.id);
      return;
    }
    const waiter = settle(reply.id);
    if (reply.error) {
      waiter?.reject(new EmbeddedDatabaseError(`the embedded database failed: ${reply.error.message}`));
      return;
    }
    let answer: Answer;
    try {
      answer = decodeAnswer(reply.bytes ?? new Uint8Array(0));
    } catch (error) {
      waiter?.reject(error as Error);
      return;
    }
    waiter?.resolve(answer);
    for (const { channel, payload } of answer.notified) {
      for (const onNotify of listeners.get(channel) ?? []) queueMicrotask(() => onNotify(payload));
    }
  });
  thread.on('error', (error) =>
    failAll(new EmbeddedDatabaseError(`the embedded database stopped: ${error.message}`)),
  );
  thread.on('exit', () => failAll(new EmbeddedDatabaseError('the embedded database is closed')));
  thread.unref();

  function send(message: { bytes: Uint8Array } | { close: true } | { memory: true }): Promise<Answer> {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    if (pending.size === 0) thread.ref();
    return new Promise<Answer>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      thread.postMessage({ id, ...message }, 'bytes' in message ? [message.bytes.buffer as ArrayBuffer] : []);
    });
  }
  async function run(bytes: Uint8Array): Promise<object[]> {
    const { rows, error } = await send({ bytes });
    if (error) throw error;
    return rows;
  }
  const statements = new PreparedStatements();
  async function runStatement(sql: string, params: readonly unknown[]): Promise<object[]> {
    const prepared = statements.for(sql);
    const { rows, error, parsed } = await send({ bytes: encodeStatement(sql, params, prepared) });
    if (prepared?.parse) statements.settle(sql, parsed);
    if (error?.code === STALE_PREPARED_STATEMENT && prepared) {
      // A table it reads all columns of changed under it: from now on this text runs unnamed.
      statements.forget(sql);
      return run(encodeStatement(sql, params));
    }
    if (error) throw error;
    return rows;
  }
  const session: Queryable = {
    query: <Row extends object>(sql: string, params: readonly unknown[] = []) =>
      runStatement(sql, params) as Promise<Row[]>,
    exec: async (sql: string) => {
      await run(encodeScript(sql));
    },
  };

  // Ends the open transaction. Were the single session left inside it, every later statement would join a
  // transaction that never commits: the database is stopped instead, with a typed error.
  async function end(command: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const { error, idle } = await send({ bytes: encodeScript(command) });
    if (!idle) {
      failAll(
        new EmbeddedDatabaseError(`the embedded database stayed inside a transaction after ${command}`),
      );
      await thread.terminate();
    }
    if (error) throw error;
    if (stopped) throw stopped;
  }

  // The open transaction's end, while one is open: statements from outside it wait for it. Each waiter
  // checks again and sends in the same turn, so nothing slips in between a transaction's turns.
  let open: Promise<void> | undefined;
  const root: Queryable = {
    async query<Row extends object>(sql: string, params: readonly unknown[] = []) {
      while (open) await open;
      return session.query<Row>(sql, params);
    },
    async exec(sql: string) {
      while (open) await open;
      return session.exec(sql);
    },
  };

  const db: Db = {
    kind: 'pglite',
    query: root.query,
    exec: root.exec,
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
      if (stopped) return Promise.reject(stopped);
      return new Promise<Record<string, number>>((resolve, reject) => {
        memoryWaiters.set(nextId, resolve);
        send({ memory: true }).catch(reject);
      });
    },
    // One statement runs on the thread at a time; the others sent are queued behind it.
    pressure: () => ({ waiting: Math.max(0, pending.size - 1), busy: pending.size > 0 ? 1 : 0 }),
    // One process owns a PGlite data dir (see data-dir-lock.ts), so there is nobody to lock out.
    withAdvisoryLock: (_key, fn) => fn(root),
    async listen(channel, onNotify) {
      let set = listeners.get(channel);
      if (set === undefined) {
        set = new Set();
        listeners.set(channel, set);
        await root.exec(`LISTEN ${quoteIdentifier(channel)}`);
      }
      set.add(onNotify);
      return async () => {
        set.delete(onNotify);
        if (set.size > 0 || listeners.get(channel) !== set) return;
        listeners.delete(channel);
        await root.exec(`UNLISTEN ${quoteIdentifier(channel)}`).catch(() => {});
      };
    },
    async close() {
      if (stopped) return;
      // An open transaction ends first; statements made from now on are refused.
      while (open) await open;
      const closing = send({ close: true });
      stopped = new EmbeddedDatabaseError('the embedded database is closed');
      await closing;
      await thread.terminate();
    },
    // One in-process session: there is no connection to wait for, only the statement or transaction ahead.
    withWaitLimit: () => db,
    withoutWaitLimit: () => db,
  };
  return db;
}

/** The channel names are the service's own, never input; quoting keeps them identifiers all the same. */
function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
