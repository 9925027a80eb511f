import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { openMemoryStore } from './pglite-snapshot.js';

/** The PostgreSQL server the suite creates its throwaway databases on (trust auth, as on CI). */
export const POSTGRES_ADMIN_URL =
  process.env.SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface Backend {
  name: 'pglite' | 'postgres';
  open(): Promise<OpenedStore>;
}

/** A migrated store on a fresh PostgreSQL database, dropped when the store closes. */
export async function openThrowawayPostgres(): Promise<OpenedStore> {
  const database = await createEmptyPostgres();
  const store = await openStore({ databaseUrl: database.url, dataDir: '/nonexistent' });
  return {
    db: store.db,
    async close() {
      await store.close();
      await database.drop();
    },
  };
}

/** A fresh, empty database with a random name; `drop` removes it (forcibly, in case a pool lingers). */
export async function createEmptyPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => dropDatabase(name) };
}

/**
 * Drops a test database. DROP DATABASE waits for a checkpoint, and while test/store/disk-full.test.ts
 * holds its own tablespace full (on purpose), every checkpoint of the server fails. The test that closed
 * its store is not at fault: the drop goes on in the background, tried again until that space is freed.
 */
async function dropDatabase(name: string): Promise<void> {
  const drop = async () => {
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  };
  const checkpointFailed = (error: unknown) => String(error).includes('checkpoint request failed');
  try {
    await drop();
  } catch (error) {
    if (!checkpointFailed(error)) throw error;
    void (async () => {
      for (let attempt = 0; attempt < 90; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        if (
          await drop().then(
            () => true,
            (again: unknown) => !checkpointFailed(again),
          )
        )
          return;
      }
    })();
  }
}

export const BACKENDS: Backend[] = [
  { name: 'pglite', open: () => openMemoryStore() },
  { name: 'postgres', open: () => openThrowawayPostgres() },
];
