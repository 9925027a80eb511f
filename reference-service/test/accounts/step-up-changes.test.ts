import { describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/domain/totp.js';
import { BACKENDS } from '../support/backends.js';
import { stranger } from '../support/stranger.js';
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
const nextStep = () => {
  clock.at += 30_000;
};

/**
 * Issue 41, finding 1: with the password of an owner who has MFA, an attacker logged in elsewhere (never
 * stepped up) changed the password, which ended the owner's stepped-up session and left no way back. For a
 * member with MFA, every change a password alone must not make now needs a fresh step-up; and a lost
 * authenticator has a way back through a recovery code.
 */
describe.each(BACKENDS)('account changes of a member with MFA need a step-up, on $name', (backend) => {
  const running = accountService(backend, { now: clock.now });
  const call = (method: string, path: string, options: Parameters<typeof portalCall>[3] = {}) =>
    portalCall(running.service.baseUrl, method, path, options);
  const logIn = async (email: string, password = PASSWORD) => {
    const answer = await call('POST', '/v1/sessions', { body: { email, password }, from: freshAddress() });
    expect(answer.status).toBe(201);
    return cookieOf(answer);
  };
  const storedHash = async (email: string) =>
    (
      await running.store.db.query<{ password_hash: string }>(
        'SELECT password_hash FROM members WHERE email = $1',
        [email],
      )
    )[0]!.password_hash;
  const stepUp = (cookie: string, body: Record<string, string>) =>
    call('POST', '/v1/sessions/step-up', { cookie, body });

  it('a password alone cannot change the password, the authenticator or a signing secret', async () => {
    const owner = await signUpOwner(running.service.baseUrl, 'mfa-owner');
    await enrolMfa(running.service.baseUrl, owner.cookie, owner.email, clock);
    const created = await call('POST', '/v1/workspace/webhooks', {
      cookie: owner.cookie,
      body: { url: 'https://hooks.example.com/in' },
    });
    expect(created.status).toBe(201);
    const endpoint = (created.body as { endpoint: { id: string } }).endpoint.id;
    const hashBefore = await storedHash(owner.email);

    // The attacker knows the password only: a session that was never stepped up.
    const attacker = await logIn(owner.email);
    const takeOver = { current_password: PASSWORD, new_password: 'the attacker chose this one' };
    expectError(
      await call('POST', '/v1/session/password', { cookie: attacker, body: takeOver }),
      403,
      'step_up_required',
    );
    expectError(await call('POST', '/v1/session/mfa', { cookie: attacker }), 403, 'step_up_required');
    expectError(
      await call('POST', `/v1/workspace/webhooks/${endpoint}/secret`, { cookie: attacker }),
      403,
      'step_up_required',
    );
    expectError(
      await call('POST', '/v1/session/recovery-codes', { cookie: attacker }),
      403,
      'step_up_required',
    );
    // Nothing changed: the owner's session lives, the password signs in, the seed is not pending another.
    expect(await storedHash(owner.email)).toBe(hashBefore);
    expect((await call('GET', '/v1/session', { cookie: owner.cookie })).status).toBe(200);
    const [row] = await running.store.db.query<{ mfa_pending_enc: string | null }>(
      'SELECT mfa_pending_enc FROM members WHERE email = $1',
      [owner.email],
    );
    expect(row?.mfa_pending_enc).toBeNull();
    await logIn(owner.email);

    // The owner, stepped up, does each; once the step-up lapses, the owner is asked again.
    expect(
      (await call('POST', `/v1/workspace/webhooks/${endpoint}/secret`, { cookie: owner.cookie })).status,
    ).toBe(200);
    const renewed = { current_password: PASSWORD, new_password: `${PASSWORD} renewed` };
    const changed = await call('POST', '/v1/session/password', { cookie: owner.cookie, body: renewed });
    expect(changed).toMatchObject({ status: 200, body: { sessions_ended: 2 } });
    expectError(await call('GET', '/v1/session', { cookie: attacker }), 401, 'unauthenticated');
    clock.at += 16 * 60_000;
    const back = { current_password: renewed.new_password, new_password: PASSWORD };
    expectError(
      await call('POST', '/v1/session/password', { cookie: owner.cookie, body: back }),
      403,
      'step_up_required',
    );
  });

  it('a password alone cannot grant a party lasting access: approving, presets, unblocking, exposure', async () => {
    const owner = await signUpOwner(running.service.baseUrl, 'grants');
    await enrolMfa(running.service.baseUrl, owner.cookie, owner.email, clock);
    const card = (await call('GET', `/v1/identities/${owner.slug}/card`, { cookie: owner.cookie })).body as {
      fingerprint: string;
    };
    const mallory = stranger();
    const asked = await mallory.send(
      running.service.baseUrl,
      card.fingerprint,
      'request',
      JSON.stringify({ card: mallory.card(clock.at) }),
      clock.at,
      'grants-0123456789abcdef',
    );
    expect(asked.status).toBe(200);
    const contact = `/v1/identities/${owner.slug}/contacts/${mallory.fingerprint}`;

    const attacker = await logIn(owner.email);
    for (const [method, path, body] of [
      ['POST', `${contact}/approve`, { preset: 'close' }],
      ['PATCH', contact, { preset: 'close' }],
      ['POST', `${contact}/unblock`, undefined],
      ['POST', `/v1/identities/${owner.slug}/integrations/any/exposure`, { entries: [] }],
      // New OAuth tokens would put another upstream account behind the tools already offered.
      ['POST', `/v1/identities/${owner.slug}/integrations/any/authorize`, {}],
    ] as const) {
      const refused = await call(method, path, { cookie: attacker, ...(body === undefined ? {} : { body }) });
      expectError(refused, 403, 'step_up_required');
    }
    const [row] = await running.store.db.query<{ status: string }>(
      'SELECT status FROM contacts WHERE fingerprint = $1',
      [mallory.fingerprint],
    );
    expect(row?.status).toBe('pending_in');
    // The owner, stepped up at enrolment, approves.
    const approved = await call('POST', `${contact}/approve`, {
      cookie: owner.cookie,
      body: { preset: 'basic' },
    });
    expect(approved.status).toBe(200);
  });

  it('a member without MFA changes the password with the current one, as before', async () => {
    const plain = await signUpOwner(running.service.baseUrl, 'no-mfa');
    const changed = await call('POST', '/v1/session/password', {
      cookie: plain.cookie,
      body: { current_password: PASSWORD, new_password: `${PASSWORD} plain` },
    });
    expect(changed.status).toBe(200);
  });

  it('a lost authenticator: a recovery code steps up, a new authenticator replaces the old one', async () => {
    const owner = await signUpOwner(running.service.baseUrl, 'lost-phone');
    const old = await enrolMfa(running.service.baseUrl, owner.cookie, owner.email, clock);
    clock.at += 16 * 60_000;

    // A new session on a new device; the phone is gone, the sheet of recovery codes is not.
    const session = await logIn(owner.email);
    expect((await stepUp(session, { recovery_code: old.recoveryCodes[0]! })).status).toBe(200);
    const started = await call('POST', '/v1/session/mfa', { cookie: session });
    expect(started.status).toBe(200);
    const fresh = (started.body as { secret: string }).secret;
    expect(fresh).not.toBe(old.secret);
    // Until the new one is confirmed, the old seed still verifies (a half-done replacement locks nobody out).
    nextStep();
    const other = await logIn(owner.email);
    expect((await stepUp(other, { code: currentTotp(old.secret, clock.at) })).status).toBe(200);

    nextStep();
    const confirmed = await call('POST', '/v1/session/mfa/confirm', {
      cookie: session,
      body: { code: currentTotp(fresh, clock.at) },
    });
    expect(confirmed.status).toBe(200);
    const codes = (confirmed.body as { recovery_codes: string[] }).recovery_codes;
    expect(codes).toHaveLength(10);
    expect(codes.filter((code) => old.recoveryCodes.includes(code))).toEqual([]);

    // From now on only the new authenticator and the new codes step up.
    nextStep();
    const later = await logIn(owner.email);
    expectError(await stepUp(later, { code: currentTotp(old.secret, clock.at) }), 403, 'step_up_required');
    expectError(await stepUp(later, { recovery_code: old.recoveryCodes[1]! }), 403, 'step_up_required');
    expect((await stepUp(later, { code: currentTotp(fresh, clock.at) })).status).toBe(200);
    expect((await stepUp(later, { recovery_code: codes[0]! })).status).toBe(200);
    const view = (await call('GET', '/v1/session', { cookie: later })).body as {
      member: { mfa_enrolled: boolean };
    };
    expect(view.member.mfa_enrolled).toBe(true);
  });
});
