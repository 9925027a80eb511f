import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { accountService, enrolMfa, expectError, portalCall, signUpOwner } from './support.js';

const clock = { at: Date.now(), now: () => clock.at };

/**
 * Issue 40, item 8 (attack notes): minting keys had no limit, so one stepped-up session minted 2,000 keys
 * in 3 s, every one a row kept for ever (a revoked key stays listed) and the key list answered whole
 * (445 KB at 2,000). Keys are now limited per workspace like invites per member.
 */
describe.each(BACKENDS)('minting API keys on $name', (backend) => {
  const running = accountService(backend, { now: clock.now });
  const call = (method: string, path: string, options: Parameters<typeof portalCall>[3] = {}) =>
    portalCall(running.service.baseUrl, method, path, options);
  const mint = (cookie: string, name: string, scopes = ['service:contacts:read']) =>
    call('POST', '/v1/workspace/keys', { cookie, body: { name, scopes } });

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
});
