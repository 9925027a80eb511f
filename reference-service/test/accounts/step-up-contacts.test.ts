import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { startFakePeer } from '../support/fake-peer.js';
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

const clock = { at: Date.now(), now: () => clock.at };

/**
 * A second look at issue 41: with an owner's password alone (a session never stepped up), requesting a
 * peer that accepts at once gave a contact `active`, and trust could be raised to `may_instruct`, although
 * approving needs a step-up. Granting a party lasting access needs one, however the grant is reached.
 */
describe.each(BACKENDS)('a password alone reaches no active contact and no trust, on $name', (backend) => {
  const running = accountService(backend, {
    now: clock.now,
    extra: { peer: { allowLocalhost: true, timeoutMs: 2000 } },
  });
  let peer: Awaited<ReturnType<typeof startFakePeer>>;
  let calls = 0;
  beforeAll(async () => {
    peer = await startFakePeer(clock.now, (verb) => {
      calls += 1;
      return JSON.stringify(verb === 'request' ? { status: 'active' } : { ok: true });
    });
  });
  afterAll(async () => {
    await peer?.close();
  });
  const call = (method: string, path: string, options: Parameters<typeof portalCall>[3] = {}) =>
    portalCall(running.service.baseUrl, method, path, options);
  const contactRow = async () =>
    (
      await running.store.db.query<{ status: string; trust_flag: string }>(
        'SELECT status, trust_flag FROM contacts WHERE fingerprint = $1',
        [peer.fingerprint],
      )
    )[0];

  it('refuses the request and the trust change until the session steps up', async () => {
    const owner = await signUpOwner(running.service.baseUrl, 'contact-grants');
    await enrolMfa(running.service.baseUrl, owner.cookie, owner.email, clock);
    const logIn = await call('POST', '/v1/sessions', {
      body: { email: owner.email, password: PASSWORD },
      from: freshAddress(),
    });
    expect(logIn.status).toBe(201);
    const attacker = cookieOf(logIn);
    const contacts = `/v1/identities/${owner.slug}/contacts`;

    expectError(
      await call('POST', contacts, { cookie: attacker, body: { card: peer.card } }),
      403,
      'step_up_required',
    );
    // Refused before the peer was called: nothing stored, nothing sent.
    expect(await contactRow()).toBeUndefined();
    expect(calls).toBe(0);

    const requested = await call('POST', contacts, { cookie: owner.cookie, body: { card: peer.card } });
    expect(requested).toMatchObject({ status: 201, body: { status: 'active' } });
    const trust = `${contacts}/${peer.fingerprint}/trust`;
    expectError(
      await call('PATCH', trust, { cookie: attacker, body: { trust: 'may_instruct' } }),
      403,
      'step_up_required',
    );
    expect(await contactRow()).toMatchObject({ status: 'active', trust_flag: 'messages_only' });
    expect(
      (await call('PATCH', trust, { cookie: owner.cookie, body: { trust: 'may_instruct' } })).status,
    ).toBe(200);
    expect(await contactRow()).toMatchObject({ trust_flag: 'may_instruct' });
  });
});
