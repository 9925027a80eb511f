import { PGlite, types } from '@electric-sql/pglite';
import type { Db, Queryable } from './db.js';

/**
 * PGlite runs in this process and serialises every query and transaction on its single connection, so
 * row locks and unique-constraint waits behave as on PostgreSQL with one client at a time. BIGINT columns
 * (millisecond timestamps) are read as numbers: they stay far below 2^53.
 */
export async function openPglite(dataDir: string | undefined): Promise<Db> {
  const pg = await PGlite.create(dataDir ?? 'memory://', {
    parsers: { [types.INT8]: (value: string) => Number(value) },
  });
  const asQueryable = (target: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<Row extends object>(sql: string, params: readonly unknown[] = []) {
      const result = await target.query<Row>(sql, [...params]);
      return result.rows;
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  });
  const root = asQueryable(pg);
  return {
    kind: 'pglite',
    query: root.query,
    exec: root.exec,
    transaction: (fn) => pg.transaction((tx) => fn(asQueryable(tx))),
    // One process owns a PGlite data dir (see data-dir-lock.ts), so there is nobody to lock out.
    withAdvisoryLock: (_key, fn) => fn(root),
    listen: (channel, onNotify) => pg.listen(channel, () => onNotify()).then((stop) => () => stop()),
    close: () => pg.close(),
  };
}
