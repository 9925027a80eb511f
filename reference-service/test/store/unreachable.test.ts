import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { DatabaseUnreachableError } from '../../src/store/unreachable.js';
import { POSTGRES_ADMIN_URL } from '../support/backends.js';

/** The admin URL with another database and a planted password (the suite's server trusts any). */
function urlWith(database: string, password: string, port?: string): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${database}`;
  url.password = password;
  if (port !== undefined) url.port = port;
  return url.href;
}

describe('a PostgreSQL database that cannot be used', () => {
  it('is refused with where it was looked for and why, never with the password', async () => {
    const password = `planted-${randomBytes(8).toString('hex')}`;
    const missing = `svc_missing_${randomBytes(4).toString('hex')}`;
    const error = await openStore({ databaseUrl: urlWith(missing, password), dataDir: '/nonexistent' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DatabaseUnreachableError);
    const { hostname, port } = new URL(POSTGRES_ADMIN_URL);
    expect((error as Error).message).toBe(
      `the PostgreSQL database in DATABASE_URL (${hostname}:${port || '5432'}, database ${missing}) cannot be used: database "${missing}" does not exist`,
    );
    expect((error as Error).message).not.toContain(password);
  });

  it('is refused when nothing answers at its address', async () => {
    const error = await openStore({
      databaseUrl: urlWith('postgres', '', '1'),
      dataDir: '/nonexistent',
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DatabaseUnreachableError);
    expect((error as Error).message).toMatch(
      /\(127\.0\.0\.1:1, database postgres\) cannot be used: .*ECONNREFUSED/,
    );
  });

  it('is refused when its connection string does not read as one, without repeating it', async () => {
    const password = `planted-${randomBytes(8).toString('hex')}`;
    const error = await openStore({
      databaseUrl: `postgres://svc:${password}@127.0.0.1:99999/svc`,
      dataDir: '/nonexistent',
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DatabaseUnreachableError);
    expect((error as Error).message).toBe(
      'the PostgreSQL database in DATABASE_URL (an unreadable connection string) cannot be used: Invalid URL',
    );
  });
});
