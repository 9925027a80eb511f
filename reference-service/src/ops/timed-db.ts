import { performance } from 'node:perf_hooks';
import type { Histogram } from 'prom-client';
import type { Db, Queryable } from '../store/db.js';

/**
 * The same database, timed: every statement (its wait for a connection included) in `statement`, and in
 * `sectionWait` how long a transaction or advisory-locked section waited before its first statement, which
 * the statements inside never see.
 */
export function timedDb(db: Db, seconds: { statement: Histogram; sectionWait: Histogram }): Db {
  const since = (started: number) => (performance.now() - started) / 1000;
  async function statement<T>(run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await run();
    } finally {
      seconds.statement.observe(since(started));
    }
  }
  const timed = (target: Queryable): Queryable => ({
    query: (sql, params) => statement(() => target.query(sql, params)),
    exec: (sql) => statement(() => target.exec(sql)),
  });
  /**
   * Runs a section with `fn` on a timed queryable, observing its wait when `fn` starts, or when the section
   * fails before it could (the longest waits are often those).
   */
  async function section<T>(
    run: (inner: (q: Queryable) => Promise<T>) => Promise<T>,
    fn: (q: Queryable) => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    let entered = false;
    try {
      return await run((q) => {
        entered = true;
        seconds.sectionWait.observe(since(started));
        return fn(timed(q));
      });
    } catch (error) {
      if (!entered) seconds.sectionWait.observe(since(started));
      throw error;
    }
  }
  const root = timed(db);
  let unbounded: Db | undefined;
  return {
    kind: db.kind,
    query: root.query,
    exec: root.exec,
    transaction: (fn) => section((inner) => db.transaction(inner), fn),
    withAdvisoryLock: (key, fn) => section((inner) => db.withAdvisoryLock(key, inner), fn),
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    close: () => db.close(),
    pressure: () => db.pressure(),
    withWaitLimit: (ms) => timedDb(db.withWaitLimit(ms), seconds),
    // Asked for on every idempotent write: wrapped once.
    withoutWaitLimit: () => (unbounded ??= timedDb(db.withoutWaitLimit(), seconds)),
  };
}
