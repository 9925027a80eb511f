import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/domain/totp.js';
import { openThrowawayPostgres } from '../support/backends.js';
import { startTestService, type TestService } from '../support/harness.js';
import { rawCall } from '../support/raw-call.js';
import { useStore } from '../support/service-lifecycle.js';
import {
  cookieOf,
  enrolMfa,
  expectError,
  freshAddress,
  PASSWORD,
  portalCall,
  signUpOwner,
  uniqueEmail,
} from './support.js';

const clock = { at: Date.now(), now: () => clock.at };

/** Two instances on one PostgreSQL database: a removal made on one is refused by the other on its next call. */
describe('removing a member, seen by another instance on PostgreSQL', () => {
  const store = useStore({ open: openThrowawayPostgres });
  let a: TestService;
  let b: TestService;

  beforeAll(async () => {
    a = await startTestService(store, { now: clock.now, extra: { signUpOpen: true } });
    b = await startTestService(store, { now: clock.now, secretBox: a.ctx.secretBox });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('refuses the removed member’s key and session on the other instance at once', async () => {
    const { cookie: owner, slug } = await signUpOwner(a.baseUrl);
    await enrolMfa(a.baseUrl, owner, 'owner', clock);
    const email = uniqueEmail('member');
    const invite = await portalCall(a.baseUrl, 'POST', '/v1/workspace/members', {
      cookie: owner,
      body: { email, permissions: ['service:workspace:admin', 'service:contacts:read'] },
    });
    const { invite_token, member } = invite.body as { invite_token: string; member: { id: string } };
    // The member works through instance b: accepts, enrols, mints a key.
    const accepted = await portalCall(b.baseUrl, 'POST', '/v1/invites/accept', {
      body: { token: invite_token, password: PASSWORD },
      from: freshAddress(),
    });
    const session = cookieOf(accepted);
    const { secret } = await enrolMfa(b.baseUrl, session, email, clock);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const minted = await portalCall(b.baseUrl, 'POST', '/v1/workspace/keys', {
      cookie: session,
      body: { name: 'b', scopes: ['service:contacts:read'] },
    });
    const key = (minted.body as { api_key: string }).api_key;
    const contacts = `/v1/identities/${slug}/contacts`;
    const withKey = () =>
      rawCall(b.baseUrl, 'GET', contacts, { headers: { authorization: `Bearer ${key}` } });
    expect((await withKey()).status).toBe(200);
    expect((await portalCall(b.baseUrl, 'GET', '/v1/session', { cookie: session })).status).toBe(200);

    expect(
      (await portalCall(a.baseUrl, 'DELETE', `/v1/workspace/members/${member.id}`, { cookie: owner })).status,
    ).toBe(204);
    expectError(await withKey(), 401, 'unauthenticated');
    expectError(
      await portalCall(b.baseUrl, 'GET', '/v1/session', { cookie: session }),
      401,
      'unauthenticated',
    );
    clock.at += 30_000;
    expectError(
      await portalCall(b.baseUrl, 'POST', '/v1/sessions/step-up', {
        cookie: session,
        body: { code: currentTotp(secret, clock.at) },
      }),
      401,
      'unauthenticated',
    );
  });
});
