import { Worker } from 'node:worker_threads';
import type { Db, Queryable } from './db.js';

/** A failure of the embedded database's thread itself (not of a statement). */
export class EmbeddedDatabaseError extends Error {
  override readonly name = 'EmbeddedDatabaseError';
}

type Answer = { id: number; result?: unknown; error?: Record<string, unknown> };
type Request = { op: string; tx?: number; sql?: string; params?: unknown[]; channel?: string };

/** A statement's error as PGlite raised it in the thread: same message, SQLSTATE `code` and fields. */
function rebuild(fields: Record<string, unknown>): Error {
  const { name, message, ...rest } = fields;
  const error = Object.assign(new Error(String(message)), rest);
  error.name = typeof name === 'string' ? name : 'Error';
  return error;
}

/**
 * PGlite on a thread of its own (src/store/pglite-thread.js): PostgreSQL compiled to WebAssembly runs
 * synchronously, so on the main thread every statement would hold up the HTTP work and the delivery
 * worker's requests. Here the two run side by side, and the main thread pays one message each way per
 * statement. PGlite serialises statements on its single connection, so row locks and unique-constraint
 * waits behave as on PostgreSQL with one client at a time. BIGINT columns are read as numbers.
 */
export async function openPglite(dataDir: string | undefined): Promise<Db> {
  const thread = new Worker(new URL('./pglite-thread.js', import.meta.url), { workerData: { dataDir } });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const listeners = new Map<string, Set<() => void>>();
  let nextId = 1;
  let stopped: Error | undefined;

  // The thread keeps the process alive only while a statement is waiting for it.
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
    const onFirst = (message: { ready?: boolean; failed?: Record<string, unknown> }) => {
      thread.off('error', reject);
      if (message.failed) reject(rebuild(message.failed));
      else resolve();
    };
    thread.once('message', onFirst);
    thread.once('error', reject);
  });

  thread.on('message', (message: Answer | { notify: string }) => {
    if ('notify' in message) {
      for (const onNotify of listeners.get(message.notify) ?? []) onNotify();
      return;
    }
    const waiter = settle(message.id);
    if (message.error) waiter?.reject(rebuild(message.error));
    else waiter?.resolve(message.result);
  });
  thread.on('error', (error) =>
    failAll(new EmbeddedDatabaseError(`the embedded database stopped: ${error.message}`)),
  );
  thread.on('exit', () => failAll(new EmbeddedDatabaseError('the embedded database is closed')));
  thread.unref();

  function call<T>(request: Request): Promise<T> {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    if (pending.size === 0) thread.ref();
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      thread.postMessage({ id, ...request });
    });
  }

  const queryable = (tx: number | undefined): Queryable => ({
    query: <Row extends object>(sql: string, params: readonly unknown[] = []) =>
      call<Row[]>({ op: 'query', sql, params: [...params], ...(tx === undefined ? {} : { tx }) }),
    exec: (sql: string) => call<void>({ op: 'exec', sql, ...(tx === undefined ? {} : { tx }) }),
  });
  const root = queryable(undefined);

  return {
    kind: 'pglite',
    query: root.query,
    exec: root.exec,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const tx = await call<number>({ op: 'begin' });
      let result: T;
      try {
        result = await fn(queryable(tx));
      } catch (error) {
        await call({ op: 'rollback', tx }).catch(() => {});
        throw error;
      }
      await call({ op: 'commit', tx });
      return result;
    },
    // One process owns a PGlite data dir (see data-dir-lock.ts), so there is nobody to lock out.
    withAdvisoryLock: (_key, fn) => fn(root),
    async listen(channel, onNotify) {
      let set = listeners.get(channel);
      if (set === undefined) {
        set = new Set();
        listeners.set(channel, set);
        await call({ op: 'listen', channel });
      }
      set.add(onNotify);
      return async () => {
        set.delete(onNotify);
        if (set.size > 0 || listeners.get(channel) !== set) return;
        listeners.delete(channel);
        await call({ op: 'unlisten', channel }).catch(() => {});
      };
    },
    async close() {
      if (stopped) return;
      await call({ op: 'close' });
      stopped = new EmbeddedDatabaseError('the embedded database is closed');
      await thread.terminate();
    },
  };
}
