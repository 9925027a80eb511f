import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { accountService, expectError, freshAddress, PASSWORD, portalCall, signUpOwner } from './support.js';

/** The portal opened at `localhost` instead of the printed 127.0.0.1: every refusal says where to go. */
describe('a cross-site refusal names the address to open instead', () => {
  const running = accountService(BACKENDS[0]!);

  it('on log-in, sign-up, invite acceptance and a session’s change', async () => {
    const origin = new URL(running.service.baseUrl).origin;
    const elsewhere = origin.replace('127.0.0.1', 'localhost');
    const owner = await signUpOwner(running.service.baseUrl, 'misplaced');
    for (const [path, options] of [
      ['/v1/sessions', { body: { email: owner.email, password: PASSWORD } }],
      ['/v1/accounts', { body: { email: 'another@misplaced.example', password: PASSWORD } }],
      ['/v1/invites/accept', { body: { token: 'x'.repeat(43), password: PASSWORD } }],
      ['/v1/session/mfa', { cookie: owner.cookie }],
    ] as const) {
      const answer = await portalCall(running.service.baseUrl, 'POST', path, {
        ...options,
        origin: elsewhere,
        from: freshAddress(),
      });
      expectError(answer, 403, 'cross_site');
      expect((answer.body as { error: { message: string } }).error.message, path).toContain(
        `open ${origin}/ instead`,
      );
    }
  });

  it('the portal learns the origin and whether it is signed in from one answer, 200 either way', async () => {
    const base = running.service.baseUrl;
    const origin = new URL(base).origin;
    // From another address, with no cookie or a stale one: no 401 for the browser to log.
    for (const cookie of [undefined, '__Host-svc_session=sess_stale']) {
      const out = await portalCall(base, 'GET', '/v1/session/state', {
        origin: origin.replace('127.0.0.1', 'localhost'),
        ...(cookie ? { cookie } : {}),
      });
      expect({ status: out.status, body: out.body }).toEqual({
        status: 200,
        body: { origin, session: null },
      });
    }
    const owner = await signUpOwner(base, 'stated');
    const signedIn = await portalCall(base, 'GET', '/v1/session/state', { cookie: owner.cookie });
    const view = (await portalCall(base, 'GET', '/v1/session', { cookie: owner.cookie })).body;
    expect(signedIn.body).toEqual({ origin, session: view });
  });
});
