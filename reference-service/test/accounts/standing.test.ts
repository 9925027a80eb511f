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
 * What a narrower admin can no longer do (attack notes of issue 17): come back through an invite sent
 * before being removed, or revoke the keys of the owner or of a wider member.
 */
describe.each(BACKENDS)('an admin narrower than the owner on $name', (backend) => {
  const running = accountService(backend, { now: clock.now });
  const call = (method: string, path: string, options: Parameters<typeof portalCall>[3] = {}) =>
    portalCall(running.service.baseUrl, method, path, options);

  /** An owner (enrolled, stepped up) and an admin holding only workspace:admin and contacts:read. */
  async function ownerAndAdmin() {
    const owner = await signUpOwner(running.service.baseUrl, 'owner');
    await enrolMfa(running.service.baseUrl, owner.cookie, owner.email, clock);
    const email = uniqueEmail('admin');
    const invited = await call('POST', '/v1/workspace/members', {
      cookie: owner.cookie,
      body: { email, permissions: ['service:workspace:admin', 'service:contacts:read'] },
    });
    expect(invited.status).toBe(201);
    const { invite_token, member } = invited.body as { invite_token: string; member: { id: string } };
    const accepted = await call('POST', '/v1/invites/accept', {
      body: { token: invite_token, password: PASSWORD },
      from: freshAddress(),
    });
    const admin = { email, id: member.id, cookie: cookieOf(accepted) };
    await enrolMfa(running.service.baseUrl, admin.cookie, email, clock);
    return { owner, admin };
  }

  const mint = (cookie: string, name: string, scopes: string[]) =>
    call('POST', '/v1/workspace/keys', { cookie, body: { name, scopes } });

  it('a removed admin cannot come back through an invite they sent before', async () => {
    const { owner, admin } = await ownerAndAdmin();
    const altEmail = uniqueEmail('admin-alt');
    const sent = await call('POST', '/v1/workspace/members', {
      cookie: admin.cookie,
      body: { email: altEmail, permissions: ['service:workspace:admin'] },
    });
    expect(sent.status).toBe(201);
    const { invite_token } = sent.body as { invite_token: string };
    expect((await call('DELETE', `/v1/workspace/members/${admin.id}`, { cookie: owner.cookie })).status).toBe(
      204,
    );
    expectError(
      await call('POST', '/v1/invites/accept', {
        body: { token: invite_token, password: PASSWORD },
        from: freshAddress(),
      }),
      404,
      'not_found',
    );
    const members = await call('GET', '/v1/workspace/members', { cookie: owner.cookie });
    expect(JSON.stringify(members.body)).not.toContain(altEmail);
    // The address is free again: its owner can sign up.
    const signUp = await call('POST', '/v1/accounts', {
      body: { email: altEmail, password: PASSWORD },
      from: freshAddress(),
    });
    expect(signUp.status).toBe(201);
  });

  it('revokes only the keys its standing allows; a minted key is never cached', async () => {
    const { owner, admin } = await ownerAndAdmin();
    const ownerKey = await mint(owner.cookie, 'owner-ci', ['service:messages:send']);
    expect(ownerKey.status).toBe(201);
    expect(ownerKey.headers['cache-control']).toBe('no-store');
    const adminKey = await mint(admin.cookie, 'admin-ci', ['service:contacts:read']);
    const ownerKeyId = (ownerKey.body as { id: string }).id;
    const adminKeyId = (adminKey.body as { id: string }).id;

    const refused = await call('DELETE', `/v1/workspace/keys/${ownerKeyId}`, { cookie: admin.cookie });
    expectError(refused, 403, 'forbidden');
    expect((refused.body as { error: { message: string } }).error.message).toMatch(/owner’s keys/);
    expectError(
      await call('DELETE', '/v1/workspace/keys/no-such-key', { cookie: admin.cookie }),
      404,
      'not_found',
    );
    expect((await call('DELETE', `/v1/workspace/keys/${adminKeyId}`, { cookie: admin.cookie })).status).toBe(
      204,
    );
    const second = await mint(admin.cookie, 'admin-ci-2', ['service:contacts:read']);
    const secondId = (second.body as { id: string }).id;
    expect((await call('DELETE', `/v1/workspace/keys/${secondId}`, { cookie: owner.cookie })).status).toBe(
      204,
    );
    const keys = (await call('GET', '/v1/workspace/keys', { cookie: owner.cookie })).body as {
      keys: { id: string; revoked_at: number | null }[];
    };
    expect(keys.keys.find((key) => key.id === ownerKeyId)?.revoked_at).toBeNull();
  });

  it('an invite neither holds the address nor tells whether it has an account, and invites are budgeted', async () => {
    const stranger = await signUpOwner(running.service.baseUrl, 'stranger');
    await enrolMfa(running.service.baseUrl, stranger.cookie, stranger.email, clock);
    const invite = (email: string) =>
      call('POST', '/v1/workspace/members', { cookie: stranger.cookie, body: { email, permissions: [] } });

    // Inviting someone's address does not keep them from signing up; the squatter's invite then fails.
    const victim = uniqueEmail('victim');
    const squat = await invite(victim);
    expect(squat.status).toBe(201);
    expect(
      (
        await call('POST', '/v1/accounts', {
          body: { email: victim, password: PASSWORD },
          from: freshAddress(),
        })
      ).status,
    ).toBe(201);
    const from = freshAddress();
    const taken = await call('POST', '/v1/invites/accept', {
      body: { token: (squat.body as { invite_token: string }).invite_token, password: `${PASSWORD} squat` },
      from,
    });
    expectError(taken, 409, 'conflict');
    expect(
      (
        await call('POST', '/v1/sessions', {
          body: { email: victim, password: PASSWORD },
          from: freshAddress(),
        })
      ).status,
    ).toBe(201);

    // An address with an account is invited like any other: no answer tells them apart.
    const known = await invite(stranger.email);
    const unknown = await invite(uniqueEmail('nobody'));
    expect([known.status, unknown.status]).toEqual([201, 201]);

    // 20 invites per member, then 429 with the time to wait (3 were sent above).
    for (let i = 3; i < 20; i++) expect((await invite(uniqueEmail(`probe${i}`))).status).toBe(201);
    const refused = await invite(uniqueEmail('one-too-many'));
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});
