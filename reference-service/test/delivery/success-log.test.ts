import { Writable } from 'node:stream';
import pino from 'pino';
import { expect, it } from 'vitest';
import { createSuccessLog } from '../../src/delivery/success-log.js';
import type { Db } from '../../src/store/db.js';
import { BACKENDS } from '../support/backends.js';
import { until } from '../support/until.js';

const quiet = pino({ level: 'silent' }, new Writable({ write: (_c, _e, done) => done() }));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('flushed() waits for the successes recorded so far, not for those recorded after its batch closed', async () => {
  const store = await BACKENDS[0]!.open();
  // Each batch's write takes 200 ms; `started` lists the batches as their writes began, `written` in the
  // order they ended.
  const started: string[][] = [];
  const written: string[][] = [];
  const db: Db = {
    ...store.db,
    async query<Row extends object>(sql: string, params?: readonly unknown[]) {
      if (!sql.includes('record_webhook_successes')) return store.db.query<Row>(sql, params);
      started.push([...((params?.[0] as string[] | undefined) ?? [])]);
      await pause(200);
      const rows = await store.db.query<Row>(sql, params);
      written.push([...((params?.[0] as string[] | undefined) ?? [])]);
      return rows;
    },
  };
  const success = (deliveryId: string) => ({ deliveryId, httpStatus: 200, latencyMs: 1, excerpt: 'ok' });
  try {
    const log = createSuccessLog(db, quiet);
    log.record(success('dlv_a'));
    await pause(20); // the first batch is being written
    log.record(success('dlv_b'));
    // A failure answered now waits for `b` (recorded before it)...
    let atFlush: string[][] | undefined;
    const flushed = log.flushed().then(() => (atFlush = written.slice()));
    // `b`'s batch is being written (its 200 ms pause outlasts the 50 ms poll, whatever the load).
    await until(() => started.length === 2);
    expect(started[1]).toEqual(['dlv_b']);
    // ...but not for `c`, recorded after `b`'s batch closed.
    log.record(success('dlv_c'));
    await flushed;
    expect(atFlush).toEqual([['dlv_a'], ['dlv_b']]);
    await log.flushed();
    expect(written).toEqual([['dlv_a'], ['dlv_b'], ['dlv_c']]);
  } finally {
    await store.close();
  }
});
