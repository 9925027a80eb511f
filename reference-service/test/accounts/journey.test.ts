import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/domain/totp.js';
import { startCredentialCache } from '../../src/store/credential-cache.js';
import { BACKENDS } from '../support/backends.js';
import { type RawAnswer, rawCall } from '../support/raw-call.js';
import {
  accountService,
  cookieOf,
  enrolMfa,
  expectError,
  freshAddress,
  PASSWORD,
  portalCall,
  uniqueEmail,
} from './support.js';

/** A clock the test moves by whole TOTP steps, so that every code is new to the service. */
const clock = { at: Date.now(), now: () => clock.at };
const nextStep = () => {
  clock.at += 30_000;
};

describe.each(BACKENDS)('the portal’s accounts from sign-up to a removed member, on $name', (backend) => {
  const running = accountService(backend, { now: clock.now });
  const call = (method: string, path: string, options: Parameters<typeof portalCall>[3] = {}) =>
    portalCall(running.service.baseUrl, method, path, options);
  const withKey = (key: string, method: string, path: string, body?: unknown): Promise<RawAnswer> =>
    rawCall(running.service.baseUrl, method, path, {
      headers: { authorization: `Bearer ${key}` },
      ...(body === undefined ? {} : { body }),
    });

  // The key cache, so that removal is seen to drop cached keys at once (PGlite announces at commit).
  beforeAll(async () => {
    running.service.ctx.credentials = await startCredentialCache(running.store.db);
  });
  afterAll(async () => {
    await running.service.ctx.credentials?.stop();
  });

  const enrol = (cookie: string, email: string) => enrolMfa(running.service.baseUrl, cookie, email, clock);

  it('signs up, enrols MFA, invites, and removal refuses the member’s key and session at once', async () => {
    const ownerEmail = uniqueEmail('owner');
    const signUp = await call('POST', '/v1/accounts', {
      body: { email: ownerEmail, password: PASSWORD },
      from: freshAddress(),
    });
    expect(signUp.status).toBe(201);
    const owner = cookieOf(signUp);
    const slug = (signUp.body as { identities: { slug: string }[] }).identities[0]!.slug;

    // Before MFA, step-up operations are refused; enrolment fixes that.
    expectError(
      await call('POST', '/v1/workspace/keys', {
        cookie: owner,
        body: { name: 'k', scopes: ['service:contacts:read'] },
      }),
      403,
      'step_up_required',
    );
    const { secret, recoveryCodes } = await enrol(owner, ownerEmail);
    const view = (await call('GET', '/v1/session', { cookie: owner })).body as {
      member: { mfa_enrolled: boolean };
      stepped_up_until: number;
    };
    expect(view.member.mfa_enrolled).toBe(true);
    expect(view.stepped_up_until).toBe(clock.at + 15 * 60_000);

    // Step-up lapses after 15 minutes; a recovery code renews it, once.
    clock.at += 16 * 60_000;
    // Without it, the authenticator cannot be replaced (a password alone must not).
    expectError(await call('POST', '/v1/session/mfa', { cookie: owner }), 403, 'step_up_required');
    expectError(
      await call('PATCH', '/v1/workspace', { cookie: owner, body: { webhooks_enabled: false } }),
      403,
      'step_up_required',
    );
    const recovery = recoveryCodes[0]!;
    const used = await call('POST', '/v1/sessions/step-up', {
      cookie: owner,
      body: { recovery_code: recovery.toLowerCase().replace(/-/g, ' ') },
    });
    expect(used.status).toBe(200);
    expectError(
      await call('POST', '/v1/sessions/step-up', { cookie: owner, body: { recovery_code: recovery } }),
      403,
      'step_up_required',
    );
    const patched = await call('PATCH', '/v1/workspace', {
      cookie: owner,
      body: { webhooks_enabled: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ webhooks_enabled: false });
    expect(
      (await call('PATCH', '/v1/workspace', { cookie: owner, body: { webhooks_enabled: true } })).status,
    ).toBe(200);
    // TOTP step-up still works.
    nextStep();
    expect(
      (
        await call('POST', '/v1/sessions/step-up', {
          cookie: owner,
          body: { code: currentTotp(secret, clock.at) },
        })
      ).status,
    ).toBe(200);

    // The owner invites a member with fewer permissions; an invite wider than the owner is impossible
    // here (the owner holds everything), so the member later tries to widen a key instead.
    const memberEmail = uniqueEmail('member');
    const invite = await call('POST', '/v1/workspace/members', {
      cookie: owner,
      body: { email: memberEmail, permissions: ['service:workspace:admin', 'service:contacts:read'] },
    });
    expect(invite.status).toBe(201);
    const { member: invited, invite_token } = invite.body as {
      member: { id: string; invited: boolean };
      invite_token: string;
    };
    expect(invited.invited).toBe(true);
    // Before acceptance, the invited e-mail cannot sign in.
    expectError(
      await call('POST', '/v1/sessions', {
        body: { email: memberEmail, password: PASSWORD },
        from: freshAddress(),
      }),
      401,
      'unauthenticated',
    );
    const accepted = await call('POST', '/v1/invites/accept', {
      body: { token: invite_token, password: PASSWORD },
      from: freshAddress(),
    });
    expect(accepted.status).toBe(201);
    const member = cookieOf(accepted);
    expect(accepted.body).toMatchObject({
      member: {
        email: memberEmail,
        owner: false,
        permissions: ['service:workspace:admin', 'service:contacts:read'],
      },
    });
    expectError(
      await call('POST', '/v1/invites/accept', {
        body: { token: invite_token, password: PASSWORD },
        from: freshAddress(),
      }),
      404,
      'not_found',
    );

    // The member enrols MFA, cannot invite or mint beyond their own permissions, mints within them.
    await enrol(member, memberEmail);
    expectError(
      await call('POST', '/v1/workspace/members', {
        cookie: member,
        body: { email: uniqueEmail(), permissions: ['service:contacts:manage'] },
      }),
      403,
      'forbidden',
    );
    expectError(
      await call('POST', '/v1/workspace/keys', {
        cookie: member,
        body: { name: 'wide', scopes: ['service:contacts:manage'] },
      }),
      403,
      'forbidden',
    );
    const minted = await call('POST', '/v1/workspace/keys', {
      cookie: member,
      body: { name: 'narrow', scopes: ['service:contacts:read'] },
    });
    expect(minted.status).toBe(201);
    const memberKey = (minted.body as { api_key: string }).api_key;
    const contacts = `/v1/identities/${slug}/contacts`;
    expect((await withKey(memberKey, 'GET', contacts)).status).toBe(200);
    expect((await withKey(memberKey, 'GET', contacts)).status).toBe(200);
    if (backend.name === 'pglite') expect(running.service.ctx.credentials!.stats().hits).toBeGreaterThan(0);
    // A member cannot remove the owner; the owner sees both members and the member's key.
    expectError(
      await call('DELETE', `/v1/workspace/members/${(signUp.body as { member: { id: string } }).member.id}`, {
        cookie: member,
      }),
      403,
      'forbidden',
    );
    const members = (await call('GET', '/v1/workspace/members', { cookie: owner })).body as {
      members: { id: string; invited: boolean }[];
    };
    expect(members.members.map((m) => m.invited)).toEqual([false, false]);
    expect(members.members).toHaveLength(2);
    const keys = (await call('GET', '/v1/workspace/keys', { cookie: owner })).body as {
      keys: { name: string; member_id: string; revoked_at: number | null }[];
    };
    expect(keys.keys).toEqual([
      expect.objectContaining({ name: 'narrow', member_id: invited.id, revoked_at: null }),
    ]);
    expect(JSON.stringify(keys)).not.toContain(memberKey.split('_')[2]);

    // A reader without service:workspace:admin: no key list, no member list, no key of any scope.
    const readerEmail = uniqueEmail('reader');
    const readerInvite = await call('POST', '/v1/workspace/members', {
      cookie: owner,
      body: { email: readerEmail, permissions: ['service:contacts:read'] },
    });
    const reader = cookieOf(
      await call('POST', '/v1/invites/accept', {
        body: { token: (readerInvite.body as { invite_token: string }).invite_token, password: PASSWORD },
        from: freshAddress(),
      }),
    );
    await enrol(reader, readerEmail);
    for (const scopes of [['service:workspace:admin'], ['service:contacts:read']]) {
      expectError(
        await call('POST', '/v1/workspace/keys', { cookie: reader, body: { name: 'r', scopes } }),
        403,
        'forbidden',
      );
    }
    expectError(await call('GET', '/v1/workspace/keys', { cookie: reader }), 403, 'forbidden');
    expectError(await call('GET', '/v1/workspace/members', { cookie: reader }), 403, 'forbidden');
    expectError(
      await call('PATCH', '/v1/workspace', { cookie: reader, body: { webhooks_enabled: false } }),
      403,
      'forbidden',
    );
    expect((await call('GET', '/v1/session', { cookie: reader })).body).toMatchObject({
      member: { permissions: ['service:contacts:read'], owner: false, mfa_enrolled: true },
    });

    // Removal: the key and the session are refused on the very next call.
    expect((await call('DELETE', `/v1/workspace/members/${invited.id}`, { cookie: owner })).status).toBe(204);
    expectError(await withKey(memberKey, 'GET', contacts), 401, 'unauthenticated');
    expectError(await call('GET', '/v1/session', { cookie: member }), 401, 'unauthenticated');
    expectError(
      await call('POST', '/v1/sessions', {
        body: { email: memberEmail, password: PASSWORD },
        from: freshAddress(),
      }),
      401,
      'unauthenticated',
    );
    const after = (await call('GET', '/v1/workspace/keys', { cookie: owner })).body as {
      keys: { revoked_at: number | null }[];
    };
    expect(after.keys[0]!.revoked_at).toBe(clock.at);
    expectError(
      await call('DELETE', `/v1/workspace/members/${invited.id}`, { cookie: owner }),
      404,
      'not_found',
    );
    // The e-mail may be invited again.
    expect(
      (
        await call('POST', '/v1/workspace/members', {
          cookie: owner,
          body: { email: memberEmail, permissions: [] },
        })
      ).status,
    ).toBe(201);
  });
});
