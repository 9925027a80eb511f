import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import {
  accountService,
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

/**
 * Issue 40, item 8 (attack notes): rows a workspace's members write through the portal's own routes, and
 * that its lists answer whole, are budgeted per workspace. Minting keys had no limit, so one stepped-up session minted 2,000 keys
 * in 3 s, every one a row kept for ever (a revoked key stays listed) and the key list answered whole
 * (445 KB at 2,000). Keys are now limited per workspace like invites per member.
 */
describe.each(BACKENDS)('keys and invites of one workspace on $name', (backend) => {
  const running = accountService(backend, { now: clock.now });
  const call = (method: string, path: string, options: Parameters<typeof portalCall>[3] = {}) =>
    portalCall(running.service.baseUrl, method, path, options);
  const mint = (cookie: string, name: string, scopes = ['service:contacts:read']) =>
    call('POST', '/v1/workspace/keys', { cookie, body: { name, scopes } });

  it('offers 10 new authenticator secrets per member, then one a minute, the row unchanged by a refusal', async () => {
    // Each offer draws a QR code and rewrites the member's row: one session's loop of them slowed another
    // tenant's reads to 224 ms (p50), where a loop of reads slowed them to 47 ms.
    const owner = await signUpOwner(running.service.baseUrl, 'enroller');
    const offer = () => call('POST', '/v1/session/mfa', { cookie: owner.cookie });
    for (let i = 0; i < 10; i++) expect((await offer()).status).toBe(200);
    const pending = async () =>
      (
        await running.store.db.query<{ mfa_pending_enc: string }>(
          'SELECT mfa_pending_enc FROM members WHERE email = $1',
          [owner.email],
        )
      )[0]!.mfa_pending_enc;
    const before = await pending();
    const refused = await offer();
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await pending()).toBe(before);
    clock.at += 60_000;
    expect((await offer()).status).toBe(200);
  });

  it('mints 20 keys per workspace, then one every 10 minutes (429 with Retry-After)', async () => {
    const owner = await signUpOwner(running.service.baseUrl, 'minter');
    await enrolMfa(running.service.baseUrl, owner.cookie, owner.email, clock);
    for (let i = 0; i < 20; i++) expect((await mint(owner.cookie, `key ${i}`)).status).toBe(201);
    const refused = await mint(owner.cookie, 'one too many');
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const listed = await call('GET', '/v1/workspace/keys', { cookie: owner.cookie });
    expect((listed.body as { keys: unknown[] }).keys).toHaveLength(20);

    // Another workspace is not held back by this one's budget.
    const other = await signUpOwner(running.service.baseUrl, 'other-minter');
    await enrolMfa(running.service.baseUrl, other.cookie, other.email, clock);
    expect((await mint(other.cookie, 'first')).status).toBe(201);

    // Ten minutes later (the step-up still fresh), one more and no second.
    clock.at += 10 * 60_000;
    expect((await mint(owner.cookie, 'later')).status).toBe(201);
    expectError(await mint(owner.cookie, 'later again'), 429, 'rate_limited');
  });

  it('sends 50 invites per workspace, however many members send them', async () => {
    const owner = await signUpOwner(running.service.baseUrl, 'inviter');
    await enrolMfa(running.service.baseUrl, owner.cookie, owner.email, clock);
    const invite = (cookie: string) =>
      call('POST', '/v1/workspace/members', {
        cookie,
        body: { email: uniqueEmail('invited'), permissions: ['service:workspace:admin'] },
      });
    /** An invited admin who joined and enrolled: a member with a budget of its own. */
    const join = async (token: string) => {
      const accepted = await call('POST', '/v1/invites/accept', {
        body: { token, password: PASSWORD },
        from: freshAddress(),
      });
      expect(accepted.status).toBe(201);
      const { email } = (accepted.body as { member: { email: string } }).member;
      const cookie = cookieOf(accepted);
      await enrolMfa(running.service.baseUrl, cookie, email, clock);
      return cookie;
    };
    const tokens: string[] = [];
    for (let i = 0; i < 20; i++) {
      const sent = await invite(owner.cookie);
      expect(sent.status).toBe(201);
      tokens.push((sent.body as { invite_token: string }).invite_token);
    }
    expectError(await invite(owner.cookie), 429, 'rate_limited');
    // Each member who joins has 20 of their own, but the workspace's 50 are shared: 20 + 20 + 10.
    const first = await join(tokens[0]!);
    for (let i = 0; i < 20; i++) expect((await invite(first)).status).toBe(201);
    const second = await join(tokens[1]!);
    for (let i = 0; i < 10; i++) expect((await invite(second)).status).toBe(201);
    const refused = await invite(second);
    expectError(refused, 429, 'rate_limited');
    expect((refused.body as { error: { message: string } }).error.message).toContain('in this workspace');
  });
});
