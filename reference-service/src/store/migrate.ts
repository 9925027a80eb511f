import { hash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type { Db } from './db.js';

/** Any fixed number: every instance migrating one PostgreSQL database takes the same advisory lock. */
const MIGRATION_LOCK_KEY = 727_001;

const FILE_NAME = /^(\d{4})_[a-z0-9_]+\.sql$/;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

/** The migrations folder sits next to this module in src/ and next to the bundle in dist/. */
const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

export async function loadMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const [index, name] of names.entries()) {
    const match = FILE_NAME.exec(name);
    if (!match) throw new Error(`migration file name ${name} must look like 0001_name.sql`);
    const version = Number(match[1]);
    // Versions are dense so that a missing or renumbered file is caught before anything runs.
    if (version !== index + 1) throw new Error(`migration ${name} should be number ${index + 1}`);
    const sql = await readFile(new URL(name, dir), 'utf8');
    migrations.push({ version, name, sql, checksum: hash('sha256', sql) });
  }
  return migrations;
}

/**
 * Applies pending migrations, each in its own transaction, under an advisory lock so that instances starting
 * at once on one PostgreSQL database apply each exactly once. Migrations are append-only: an applied file
 * whose text changed stops the start-up instead of drifting silently.
 */
export async function migrate(db: Db, migrations?: Migration[]): Promise<number[]> {
  const all = migrations ?? (await loadMigrations());
  return db.withAdvisoryLock(MIGRATION_LOCK_KEY, async (conn) => {
    await conn.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      checksum TEXT NOT NULL,
      applied_at BIGINT NOT NULL
    )`);
    const applied = await conn.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    const byVersion = new Map(applied.map((row) => [row.version, row]));
    const ran: number[] = [];
    for (const migration of all) {
      const done = byVersion.get(migration.version);
      if (done) {
        if (done.checksum !== migration.checksum) {
          throw new Error(
            `migration ${migration.name} was changed after it was applied; add a new one instead`,
          );
        }
        continue;
      }
      await conn.exec('BEGIN');
      try {
        await conn.exec(migration.sql);
        await conn.query(
          'INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)',
          [migration.version, migration.name, migration.checksum, Date.now()],
        );
        await conn.exec('COMMIT');
      } catch (error) {
        await conn.exec('ROLLBACK');
        throw error;
      }
      ran.push(migration.version);
    }
    return ran;
  });
}
