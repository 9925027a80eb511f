import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { DatabaseUnreachableError } from '../../src/store/unreachable.js';
import { POSTGRES_ADMIN_URL } from '../support/backends.js';

const { hostname, port } = new URL(POSTGRES_ADMIN_URL);
const where = `${hostname}:${port || '5432'}`;
const planted = (label: string) => `${label}${randomBytes(8).toString('hex')}`;

/** The admin URL with another database, user and password (the suite's server trusts any password). */
function urlWith(parts: { database: string; password?: string; user?: string; port?: string }): string {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${parts.database}`;
  url.password = parts.password ?? '';
  if (parts.user !== undefined) url.username = parts.user;
  if (parts.port !== undefined) url.port = parts.port;
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
    const password = planted('planted-');
    const missing = planted('svc_missing_');
    const error = await refusalOf(urlWith({ database: missing, password }));
    expect(error.message).toBe(
      `the PostgreSQL database in DATABASE_URL (${where}, database ${missing}) cannot be used: the database does not exist (3D000)`,
    );
    expect(error.message).not.toContain(password);
  });

  it('is refused when nothing answers at its address', async () => {
    const error = await refusalOf(urlWith({ database: 'postgres', port: '1' }));
    expect(error.message).toBe(
      'the PostgreSQL database in DATABASE_URL (127.0.0.1:1, database postgres) cannot be used: nothing accepted the connection (ECONNREFUSED)',
    );
  });

  it('is refused when its connection string does not read as one, without repeating it', async () => {
    const password = planted('planted-');
    const error = await refusalOf(`postgres://svc:${password}@127.0.0.1:99999/svc`);
    expect(error.message).toBe(
      'the PostgreSQL database in DATABASE_URL (an unreadable connection string) cannot be used: it does not read as a URL (ERR_INVALID_URL)',
    );
  });

  // The server's text names the role: an unknown one, the one in `?user=`, and the user whose name an
  // unnamed database takes.
  it('never names the user, wherever the connection string gives it', async () => {
    const user = planted('svc_user_');
    const refusals = [
      await refusalOf(urlWith({ database: 'postgres', user })),
      await refusalOf(urlWith({ database: 'postgres', user: encodeURIComponent(user).replace('_', '%5F') })),
      await refusalOf(`postgres://${where}/postgres?user=${user}&password=pw`),
      await refusalOf(urlWith({ database: '', user: 'postgres' }).replace('postgres@', `${user}@`)),
    ];
    for (const error of refusals) {
      expect(error.message).not.toContain(user);
      expect(error.message).toMatch(
        /cannot be used: the server refused this login \(its roles or pg_hba\.conf\) \(28000\)$/,
      );
    }
    expect(refusals[3]!.message).toContain(`(${where}, database named after the user)`);
  });

  // Such a password ends the URL's authority early: its user then reads as the host, and pg dials it.
  it("repeats nothing of a connection string whose password holds an unescaped '/', '?' or '#'", async () => {
    const user = planted('appuser');
    const password = planted('s3cret');
    for (const cut of ['/', '1234/', '?', '#']) {
      const error = await refusalOf(`postgres://${user}:${cut}${password}@${where}/postgres`);
      expect(error.message).not.toContain(user);
      expect(error.message).not.toContain(password);
      expect(error.message).toContain('(a connection string read ambiguously:');
    }
  });

  it('stays one line whatever the database is called', async () => {
    const error = await refusalOf(urlWith({ database: 'no%0Asuch%1B' }));
    expect(error.message).toContain('database no\\u000asuch\\u001b)');
    expect([...error.message].filter((c) => c.charCodeAt(0) < 0x20)).toEqual([]);
  });
});
