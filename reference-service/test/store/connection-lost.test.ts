import pg from 'pg';
import { expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { createEmptyPostgres, POSTGRES_ADMIN_URL } from '../support/backends.js';
import { until } from '../support/until.js';

// The pool and the LISTEN connection open new connections on their own; an operator is told each time.
it('tells of each PostgreSQL connection the server ends, and goes on with new ones', async () => {
  const database = await createEmptyPostgres();
  const lost: Error[] = [];
  const store = await openStore({
    databaseUrl: database.url,
    dataDir: '/nonexistent',
    onConnectionLost: (error) => lost.push(error),
  });
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    const heard: string[] = [];
    await store.db.listen('svc_test_lost', (payload) => heard.push(payload));
    await store.db.query('SELECT 1');
    const name = new URL(database.url).pathname.slice(1);
    const [{ ended }] = (
      await admin.query<{ ended: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS ended FROM pg_stat_activity WHERE datname = $1`,
        [name],
      )
    ).rows as [{ ended: number }];
    // The pool's idle connection and the LISTEN connection.
    expect(ended).toBe(2);
    await until(() => lost.length === 2);
    expect(lost.map((error) => error.message)).toEqual(
      Array.from({ length: 2 }, () => expect.stringContaining('terminating connection')),
    );
    expect(await store.db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    // Listening again after its pause: a notification arrives.
    await until(async () => {
      await store.db.query(`SELECT pg_notify('svc_test_lost', 'back')`);
      return heard.includes('back');
    });
  } finally {
    await admin.end();
    await store.close();
    await database.drop();
  }
});
