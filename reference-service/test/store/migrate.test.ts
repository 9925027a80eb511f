import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { openPostgres } from '../../src/store/postgres.js';
import { createEmptyPostgres } from '../support/backends.js';

async function migrationsDir(files: Record<string, string>): Promise<URL> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-migrations-'));
  for (const [name, sql] of Object.entries(files)) await writeFile(join(dir, name), sql);
  return pathToFileURL(`${dir}/`);
}

describe('migrations', () => {
  it('ships dense, well-named files', async () => {
    const migrations = await loadMigrations();
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
  });

  it('refuses a gap or a badly named file', async () => {
    await expect(
      loadMigrations(await migrationsDir({ '0001_a.sql': 'SELECT 1', '0003_c.sql': 'SELECT 1' })),
    ).rejects.toThrow(/should be number 2/);
    await expect(loadMigrations(await migrationsDir({ '1_a.sql': 'SELECT 1' }))).rejects.toThrow(
      /0001_name\.sql/,
    );
  });

  it('applies each migration once and refuses one edited after it was applied', async () => {
    const db = await openPglite(undefined);
    try {
      const v1 = await loadMigrations(await migrationsDir({ '0001_a.sql': 'CREATE TABLE a (x INT);' }));
      expect(await migrate(db, v1)).toEqual([1]);
      expect(await migrate(db, v1)).toEqual([]);
      const v2 = await loadMigrations(
        await migrationsDir({
          '0001_a.sql': 'CREATE TABLE a (x INT);',
          '0002_b.sql': 'CREATE TABLE b (y INT);',
        }),
      );
      expect(await migrate(db, v2)).toEqual([2]);
      const edited = await loadMigrations(
        await migrationsDir({ '0001_a.sql': 'CREATE TABLE a (x BIGINT);' }),
      );
      await expect(migrate(db, edited)).rejects.toThrow(/changed after it was applied/);
    } finally {
      await db.close();
    }
  });

  it('rolls a failing migration back entirely', async () => {
    const db = await openPglite(undefined);
    try {
      const broken = await loadMigrations(
        await migrationsDir({ '0001_a.sql': 'CREATE TABLE a (x INT); CREATE TABLE a (x INT);' }),
      );
      await expect(migrate(db, broken)).rejects.toThrow();
      expect(await db.query("SELECT 1 FROM information_schema.tables WHERE table_name = 'a'")).toEqual([]);
      expect(await db.query('SELECT * FROM schema_migrations')).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('lets several instances start at once on one PostgreSQL database', async () => {
    const database = await createEmptyPostgres();
    const dbs = await Promise.all(Array.from({ length: 4 }, () => openPostgres(database.url)));
    try {
      const ran = await Promise.all(dbs.map((db) => migrate(db)));
      const all = (await loadMigrations()).map((m) => m.version);
      // Every migration ran exactly once, whichever instance ran it.
      expect(ran.flat().sort((a, b) => a - b)).toEqual(all);
      const rows = await dbs[0]!.query<{ version: number }>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      expect(rows.map((r) => r.version)).toEqual(all);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await database.drop();
    }
  });

  it('waits for the migration lock past a lock or statement timeout its operator set', async () => {
    const database = await createEmptyPostgres();
    const url = new URL(database.url);
    url.searchParams.set('options', '-c lock_timeout=200 -c statement_timeout=300');
    const db = await openPostgres(url.href);
    // Another instance migrating: it holds the lock for longer than either timeout.
    const other = new pg.Client({ connectionString: database.url });
    try {
      await other.connect();
      await other.query('SELECT pg_advisory_lock(727001)');
      setTimeout(() => void other.query('SELECT pg_advisory_unlock(727001)'), 800);
      const started = performance.now();
      const ran = await migrate(db);
      expect(performance.now() - started).toBeGreaterThanOrEqual(700);
      expect(ran).toEqual((await loadMigrations()).map((m) => m.version));
      // No connection of the pool keeps the section's settings.
      expect(await db.query('SHOW lock_timeout')).toEqual([{ lock_timeout: '200ms' }]);
      expect(await db.query('SHOW statement_timeout')).toEqual([{ statement_timeout: '300ms' }]);
    } finally {
      await other.end().catch(() => {});
      await db.close();
      await database.drop();
    }
  });
});
