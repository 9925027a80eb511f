import { hash } from 'node:crypto';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseConnectionString } from 'pg-connection-string';
import type { Config } from './config.js';
import { ensurePrivateDir } from './store/private-dir.js';

/**
 * The data dir's file for the first start's secrets when they are not printed: one per database (each is
 * seeded with an owner of its own), a PostgreSQL one named by its database and a digest of where it is, never
 * the URL's credentials. Never throws: it runs after the seeding, whose secrets are shown nowhere else.
 */
export function firstStartFileIn(dataDir: string, databaseUrl?: string): string {
  if (databaseUrl === undefined) return join(dataDir, 'first-start.txt');
  let where: { database: string; place: string };
  try {
    const { host, port, database, user } = parseConnectionString(databaseUrl);
    // pg's own defaults: the database is named after the user, the host is local.
    const name = database || user || 'postgres';
    where = { database: name, place: `${host || 'localhost'}\n${port || '5432'}\n${name}` };
  } catch {
    where = { database: 'postgres', place: databaseUrl };
  }
  const digest = hash('sha256', where.place).slice(0, 8);
  const readable = where.database.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return join(dataDir, `first-start-postgres-${readable}-${digest}.txt`);
}

/**
 * Where the sandbox owner's first-start secrets go: printed in a terminal, for the newcomer in front of it;
 * without one (a container, a service manager), stdout is a log many read and keep, so to a file only the
 * service's user reads. `SVC_FIRST_START_SECRETS` decides instead. Answers the file, or `undefined` for
 * stdout.
 */
export function firstStartSecretsFile(
  config: Pick<Config, 'dataDir' | 'databaseUrl' | 'firstStartSecrets'>,
  terminal: boolean = process.stdout.isTTY === true,
): string | undefined {
  const choice = config.firstStartSecrets;
  if (choice === 'stdout' || (choice !== 'file' && terminal)) return undefined;
  return firstStartFileIn(config.dataDir, config.databaseUrl);
}

export function writeFirstStartSecrets(path: string, dataDir: string, lines: readonly string[]): void {
  ensurePrivateDir(dataDir);
  writeFileSync(path, `${lines.join('\n')}\n`, { mode: 0o600 });
  // An older file keeps its mode through writeFileSync: made private whatever it was.
  chmodSync(path, 0o600);
}
