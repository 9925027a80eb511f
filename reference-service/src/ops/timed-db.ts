import { performance } from 'node:perf_hooks';
import type { Histogram } from 'prom-client';
import type { Db, Queryable } from '../store/db.js';

/** The same database, with every statement's time (waiting included) observed in `seconds`. */
export function timedDb(db: Db, seconds: Histogram): Db {
  const timed = (target: Queryable): Queryable => ({
    async query<Row extends object>(sql: string, params?: readonly unknown[]) {
      const started = performance.now();
      try {
        return await target.query<Row>(sql, params);
      } finally {
        seconds.observe((performance.now() - started) / 1000);
      }
    },
    async exec(sql: string) {
      const started = performance.now();
      try {
        await target.exec(sql);
      } finally {
        seconds.observe((performance.now() - started) / 1000);
      }
    },
  });
  const root = timed(db);
  return {
    kind: db.kind,
    query: root.query,
    exec: root.exec,
    transaction: (fn) => db.transaction((tx) => fn(timed(tx))),
    withAdvisoryLock: (key, fn) => db.withAdvisoryLock(key, (conn) => fn(timed(conn))),
    listen: (channel, onNotify) => db.listen(channel, onNotify),
    close: () => db.close(),
    pressure: () => db.pressure(),
  };
}
