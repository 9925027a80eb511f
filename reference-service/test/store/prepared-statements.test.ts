import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { openPostgres } from '../../src/store/postgres.js';
import { createEmptyPostgres } from '../support/backends.js';

let database: Awaited<ReturnType<typeof createEmptyPostgres>>;
let running: Db;
let upgrading: Db;

beforeAll(async () => {
  database = await createEmptyPostgres();
  running = await openPostgres(database.url);
  upgrading = await openPostgres(database.url);
  await running.exec('CREATE TABLE things (id TEXT PRIMARY KEY); INSERT INTO things VALUES ($$a$$)');
});

afterAll(async () => {
  await running?.close();
  await upgrading?.close();
  await database?.drop();
});

it('keeps answering a statement prepared before another instance added a column to its table', async () => {
  const read = () => running.query<Record<string, unknown>>('SELECT * FROM things ORDER BY id');
  // Every connection of the pool prepares it: run it on several at once, a few times.
  for (let i = 0; i < 3; i++)
    expect(await Promise.all([read(), read(), read()])).toEqual([
      [{ id: 'a' }],
      [{ id: 'a' }],
      [{ id: 'a' }],
    ]);

  await upgrading.exec(`ALTER TABLE things ADD COLUMN note TEXT NOT NULL DEFAULT 'n'`);
  for (let i = 0; i < 3; i++) {
    expect(await Promise.all([read(), read(), read()])).toEqual([
      [{ id: 'a', note: 'n' }],
      [{ id: 'a', note: 'n' }],
      [{ id: 'a', note: 'n' }],
    ]);
  }
});
