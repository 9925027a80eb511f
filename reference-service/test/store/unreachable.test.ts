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

/** The error opening a store on `databaseUrl` fails with, which must be the one-line refusal. */
async function refusalOf(databaseUrl: string): Promise<Error> {
  const error = await openStore({ databaseUrl, dataDir: '/nonexistent' }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DatabaseUnreachableError);
  return error as Error;
}

describe('a PostgreSQL database that cannot be used', () => {
  it('is refused with where it was looked for and why, never with the password', async () => {
    const password = `planted-${randomBytes(8).toString('hex')}`;
    const missing = `svc_missing_${randomBytes(4).toString('hex')}`;
    const error = await refusalOf(urlWith(missing, password));
    const { hostname, port } = new URL(POSTGRES_ADMIN_URL);
    expect(error.message).toBe(
      `the PostgreSQL database in DATABASE_URL (${hostname}:${port || '5432'}, database ${missing}) cannot be used: database "${missing}" does not exist`,
    );
    expect(error.message).not.toContain(password);
  });

  it('is refused when nothing answers at its address', async () => {
    const error = await refusalOf(urlWith('postgres', '', '1'));
    expect(error.message).toMatch(/\(127\.0\.0\.1:1, database postgres\) cannot be used: .*ECONNREFUSED/);
  });

  it('is refused when its connection string does not read as one, without repeating it', async () => {
    const password = `planted-${randomBytes(8).toString('hex')}`;
    const error = await refusalOf(`postgres://svc:${password}@127.0.0.1:99999/svc`);
    expect(error.message).toBe(
      'the PostgreSQL database in DATABASE_URL (an unreadable connection string) cannot be used: Invalid URL',
    );
  });
});
