import pg from 'pg';
import { expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { openStore } from '../../src/store/open.js';
import { createEmptyPostgres, POSTGRES_ADMIN_URL } from '../support/backends.js';
import { until } from '../support/until.js';

/** A store on a throwaway database that records each connection it is told it lost, and an admin client. */
async function withLostConnections(
  run: (context: { db: Db; databaseName: string; lost: Error[]; admin: pg.Client }) => Promise<void>,
): Promise<void> {
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
    await run({ db: store.db, databaseName: new URL(database.url).pathname.slice(1), lost, admin });
  } finally {
    await admin.end();
    await store.close();
    await database.drop();
  }
}

// The pool and the LISTEN connection open new connections on their own; an operator is told each time.
it('tells of each PostgreSQL connection the server ends, and goes on with new ones', async () => {
  await withLostConnections(async ({ db, databaseName, lost, admin }) => {
    const heard: string[] = [];
    await db.listen('svc_test_lost', (payload) => heard.push(payload));
    await db.query('SELECT 1');
    const [{ ended }] = (
      await admin.query<{ ended: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS ended FROM pg_stat_activity WHERE datname = $1`,
        [databaseName],
      )
    ).rows as [{ ended: number }];
    // The pool's idle connection and the LISTEN connection.
    expect(ended).toBe(2);
    await until(() => lost.length === 2);
    expect(lost.map((error) => error.message)).toEqual(
      Array.from({ length: 2 }, () => expect.stringContaining('terminating connection')),
    );
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    // Listening again after its pause: a notification arrives.
    await until(async () => {
      await db.query(`SELECT pg_notify('svc_test_lost', 'back')`);
      return heard.includes('back');
    });
  });
});

// pg reports such a connection twice: the server's message, then the socket closing under it.
it('tells once of a connection the server ends while a transaction holds it', async () => {
  await withLostConnections(async ({ db, lost, admin }) => {
    const failed = await db
      .transaction(async (tx) => {
        const [{ pid }] = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')) as [
          { pid: number },
        ];
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        // The server's message and the closed socket reach the idle client before its next statement.
        await until(() => lost.length >= 1);
        await new Promise((resolve) => setTimeout(resolve, 100));
        await tx.query('SELECT 1');
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failed).toBeInstanceOf(Error);
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    expect(lost.map((error) => error.message)).toEqual([expect.stringContaining('terminating connection')]);
  });
});
