import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/domain/totp.js';
import { BACKENDS } from '../support/backends.js';
import { createTenant } from '../support/harness.js';
import { rawCall } from '../support/raw-call.js';
import {
  accountService,
  cookieOf,
  enrolMfa,
  expectError,
  freshAddress,
  PASSWORD,
  portalCall,
  signUpOwner,
} from './support.js';

/** A clock the test moves by whole TOTP steps, so that every code is new to the service. */
const clock = { at: Date.now(), now: () => clock.at };

describe.each(BACKENDS)('the signed-in person’s password and recovery codes on $name', (backend) => {
  const running = accountService(backend, { now: clock.now });
  const call = (method: string, path: string, options: Parameters<typeof portalCall>[3] = {}) =>
    portalCall(running.service.baseUrl, method, path, options);
  const logIn = (email: string, password: string) =>
    call('POST', '/v1/sessions', { body: { email, password }, from: freshAddress() });
  const storedHash = async (email: string) =>
    (
      await running.store.db.query<{ password_hash: string }>(
        'SELECT password_hash FROM members WHERE email = $1',
        [email],
      )
    )[0]!.password_hash;

  it('changes the password with the current one and ends every other session of the person', async () => {
    const owner = await signUpOwner(running.service.baseUrl, 'changer');
    const other = cookieOf(await logIn(owner.email, PASSWORD));
    const change = (body: unknown, cookie = owner.cookie) =>
      call('POST', '/v1/session/password', { cookie, body });
    const next = `${PASSWORD} renewed`;

    expectError(await change({ current_password: 'not the password', new_password: next }), 403, 'forbidden');
    expectError(await change({ current_password: PASSWORD, new_password: 'short' }), 400, 'invalid_request');
    expectError(await change({ current_password: PASSWORD, new_password: PASSWORD }), 400, 'invalid_request');
    expectError(await change({ current_password: PASSWORD }), 400, 'invalid_request');
    // Nothing changed so far: both sessions live, the old password still signs in.
    expect((await call('GET', '/v1/session', { cookie: other })).status).toBe(200);

    const changed = await change({ current_password: PASSWORD, new_password: next });
    expect(changed).toMatchObject({ status: 200, body: { sessions_ended: 1 } });
    expect((await call('GET', '/v1/session', { cookie: owner.cookie })).status).toBe(200);
    expectError(await call('GET', '/v1/session', { cookie: other }), 401, 'unauthenticated');
    expectError(await logIn(owner.email, PASSWORD), 401, 'unauthenticated');
    expect((await logIn(owner.email, next)).status).toBe(201);
  });

  it('refuses a password change from another origin, with an API key, and without a session', async () => {
    const owner = await signUpOwner(running.service.baseUrl, 'guarded');
    const body = { current_password: PASSWORD, new_password: `${PASSWORD} elsewhere` };
    expectError(
      await call('POST', '/v1/session/password', {
        cookie: owner.cookie,
        body,
        origin: 'https://evil.example',
      }),
      403,
      'cross_site',
    );
    expectError(await call('POST', '/v1/session/password', { body }), 401, 'unauthenticated');
    const { key } = await createTenant(running.service.ctx);
    const withKey = await rawCall(running.service.baseUrl, 'POST', '/v1/session/password', {
      headers: { authorization: `Bearer ${key}` },
      body,
    });
    expectError(withKey, 401, 'unauthenticated');
    expect((await logIn(owner.email, PASSWORD)).status).toBe(201);
  });

  it('counts wrong current passwords per person in the database: the sixth is 429, even when right', async () => {
    const owner = await signUpOwner(running.service.baseUrl, 'guesser');
    const second = cookieOf(await logIn(owner.email, PASSWORD));
    const guess = (current: string, cookie: string) =>
      call('POST', '/v1/session/password', {
        cookie,
        body: { current_password: current, new_password: `${PASSWORD} guessed` },
      });
    for (let i = 0; i < 5; i++)
      expectError(await guess(`wrong ${i}`, i % 2 ? second : owner.cookie), 403, 'forbidden');
    // Another session of the same person shares the budget: logging in again does not reset it.
    const refused = await guess(PASSWORD, second);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((refused.body as { error: { retry_after?: number } }).error.retry_after).toBeGreaterThan(0);
    expect((await logIn(owner.email, PASSWORD)).status).toBe(201);
  });

  it('counts right password changes too: a loop of them is 429 before scrypt, not a held gate', async () => {
    // Each change costs two scrypt runs in the process's gate (2 at once): uncounted, one tenant's loop of
    // right changes made every other tenant's log-in wait seconds behind it.
    const owner = await signUpOwner(running.service.baseUrl, 'churner');
    const passwords = [PASSWORD, `${PASSWORD} two`];
    for (let i = 0; i < 5; i++) {
      const changed = await call('POST', '/v1/session/password', {
        cookie: owner.cookie,
        body: { current_password: passwords[i % 2], new_password: passwords[(i + 1) % 2] },
      });
      expect(changed.status).toBe(200);
    }
    const current = passwords[1]!;
    const refused = await call('POST', '/v1/session/password', {
      cookie: owner.cookie,
      body: { current_password: current, new_password: passwords[0] },
    });
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Refused before anything was written: the password is still the fifth change's.
    expect((await logIn(owner.email, current)).status).toBe(201);
  });

  it('regenerates recovery codes only when stepped up: old codes stop working, new ones are stored hashed', async () => {
    const owner = await signUpOwner(running.service.baseUrl, 'recoverer');
    const { secret, recoveryCodes: old } = await enrolMfa(
      running.service.baseUrl,
      owner.cookie,
      owner.email,
      clock,
    );
    const fresh = cookieOf(await logIn(owner.email, PASSWORD));
    expectError(await call('POST', '/v1/session/recovery-codes', { cookie: fresh }), 403, 'step_up_required');
    expectError(
      await call('POST', '/v1/session/recovery-codes', { cookie: fresh, origin: 'https://evil.example' }),
      403,
      'cross_site',
    );
    clock.at += 30_000;
    const steppedUp = await call('POST', '/v1/sessions/step-up', {
      cookie: fresh,
      body: { code: currentTotp(secret, clock.at) },
    });
    expect(steppedUp.status).toBe(200);

    const answer = await call('POST', '/v1/session/recovery-codes', { cookie: fresh });
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    const codes = (answer.body as { recovery_codes: string[] }).recovery_codes;
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[A-Z2-7]{4}(-[A-Z2-7]{4}){3}$/);
    expect(codes.filter((code) => old.includes(code))).toEqual([]);

    const rows = await running.store.db.query<{ code_hash: string; used_at: number | null }>(
      `SELECT c.code_hash, c.used_at FROM member_recovery_codes c JOIN members m ON m.id = c.member_id
        WHERE m.email = $1`,
      [owner.email],
    );
    expect(rows).toHaveLength(10);
    const stored = JSON.stringify(rows);
    for (const code of [...codes, ...old]) {
      expect(stored).not.toContain(code);
      expect(stored).not.toContain(code.replace(/-/g, ''));
    }

    const stepUpWith = async (code: string) => {
      const session = cookieOf(await logIn(owner.email, PASSWORD));
      return call('POST', '/v1/sessions/step-up', { cookie: session, body: { recovery_code: code } });
    };
    expectError(await stepUpWith(old[0]!), 403, 'step_up_required');
    expect((await stepUpWith(codes[0]!)).status).toBe(200);
    expectError(await stepUpWith(codes[0]!), 403, 'step_up_required');
  });

  it('rehashes a password stored at an older cost at the next successful log-in, not at a failed one', async () => {
    const owner = await signUpOwner(running.service.baseUrl, 'rehashed');
    const salt = randomBytes(16);
    // Node's scrypt defaults (N=2^14, p=1), the format written before the cost was stored with the hash.
    const legacy = `scrypt.${salt.toString('base64url')}.${scryptSync(PASSWORD, salt, 32).toString('base64url')}`;
    await running.store.db.query('UPDATE members SET password_hash = $2 WHERE email = $1', [
      owner.email,
      legacy,
    ]);

    expectError(await logIn(owner.email, `${PASSWORD} wrong`), 401, 'unauthenticated');
    expect(await storedHash(owner.email)).toBe(legacy);

    expect((await logIn(owner.email, PASSWORD)).status).toBe(201);
    const upgraded = await storedHash(owner.email);
    // Rewritten at the cost this service is configured with: the test harness's (SVC_PASSWORD_COST=test).
    expect(upgraded).toMatch(/^scrypt2\.1024\.8\.1\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    expect((await logIn(owner.email, PASSWORD)).status).toBe(201);
    // Already at today's cost: left as it is.
    expect(await storedHash(owner.email)).toBe(upgraded);
  });
});
