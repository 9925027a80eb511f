import { Histogram, Registry } from 'prom-client';
import { expect, it } from 'vitest';
import { timedDb } from '../../src/ops/timed-db.js';
import { BACKENDS } from '../support/backends.js';

it('observes a section’s wait when it runs and when it fails before its first statement', async () => {
  const store = await BACKENDS[0]!.open();
  const registers = [new Registry()];
  const statement = new Histogram({ name: 'statement_seconds', help: 'statement', registers });
  const sectionWait = new Histogram({ name: 'section_wait_seconds', help: 'wait', registers });
  const db = timedDb(store.db, { statement, sectionWait });
  const count = async (histogram: Histogram) =>
    (await histogram.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value;

  await db.transaction((tx) => tx.query('SELECT 1'));
  expect(await count(sectionWait)).toBe(1);
  expect(await count(statement)).toBe(1);

  // The database is gone: the transaction fails before it could begin, and its wait is still observed.
  await store.close();
  let ran = false;
  await expect(
    db.transaction(async () => {
      ran = true;
    }),
  ).rejects.toThrow();
  expect(ran).toBe(false);
  expect(await count(sectionWait)).toBe(2);
});
