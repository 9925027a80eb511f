import { PRESET_PERMISSIONS } from '@svc-kit/contract';
import { expect, it } from 'vitest';
import { expectApiError, type RawAnswer, rawCall } from './expect.js';
import type { Party, Target } from './target.js';

const contactsOf = (party: Party) => `/v1/identities/${party.slug}/contacts`;

async function statusesOf(party: Party): Promise<Record<string, string>> {
  const { contacts } = await party.api.contacts.list(party.slug);
  return Object.fromEntries(contacts.map((contact) => [contact.fingerprint, contact.status]));
}

/** The contact state machine of spec 3.2 across two identities, and the refusals around it. */
export function contactScenarios(target: () => Target): void {
  it('request, then approve without a body: preset basic and its switches, on both sides', async () => {
    const [alice, bob] = await target().pair();
    await target().deliverRequest(alice, bob);
    expect(await statusesOf(alice)).toEqual({ [bob.fingerprint]: 'pending_out' });
    expect(await statusesOf(bob)).toEqual({ [alice.fingerprint]: 'pending_in' });
    expect((await alice.api.contacts.list(alice.slug, { status: 'pending_in' })).contacts).toEqual([]);

    // Spec 3.2: the preset defaults to `basic`, so the body may be left out entirely.
    const approved = await rawCall(target(), bob, 'POST', `${contactsOf(bob)}/${alice.fingerprint}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({
      status: 'approved',
      fingerprint: alice.fingerprint,
      preset: 'basic',
      notified: true,
    });
    const [record] = (await bob.api.contacts.list(bob.slug, { status: 'active' })).contacts;
    expect(record).toMatchObject({
      fingerprint: alice.fingerprint,
      status: 'active',
      preset: 'basic',
      permissions: [...PRESET_PERMISSIONS.basic],
      trust_flag: 'messages_only',
      petname: '',
      acceptance_unheard_since: null,
      address_claim: null,
    });
    if (target().capabilities.peers) {
      expect(await statusesOf(alice)).toEqual({ [bob.fingerprint]: 'active' });
    }
  });

  it('an active contact: update, petname, trust, tell-accepted, tools, call, refresh', async () => {
    const [alice, bob] = await target().pair();
    await target().deliverRequest(alice, bob);
    await bob.api.contacts.approve(bob.slug, alice.fingerprint, { preset: 'colleague' });
    const A = alice.fingerprint;
    const updated = await bob.api.contacts.update(bob.slug, A, { preset: 'close' });
    expect(updated.contact).toMatchObject({ preset: 'close', permissions: [...PRESET_PERMISSIONS.close] });
    const switched = await bob.api.contacts.update(bob.slug, A, { permissions: ['x', 'x', 'y'] });
    expect(switched.contact).toMatchObject({ preset: 'close', permissions: ['x', 'y'] });
    expect(await bob.api.contacts.setPetname(bob.slug, A, { petname: 'Al' })).toBeNull();
    expect(await bob.api.contacts.setTrust(bob.slug, A, { trust: 'may_instruct' })).toBeNull();
    expect((await bob.api.contacts.list(bob.slug)).contacts[0]).toMatchObject({
      petname: 'Al',
      trust_flag: 'may_instruct',
    });
    expect(await bob.api.contacts.notifyAcceptance(bob.slug, A)).toEqual({
      fingerprint: A,
      notified: true,
      refusal: null,
    });
    // Alice offers no tools: an empty list, and a call answered by the peer with ok: false.
    expect(await bob.api.contacts.listTools(bob.slug, A)).toEqual({ tools: [] });
    const called = await bob.api.contacts.callTool(bob.slug, A, { tool: 'search', arguments: { q: 1 } });
    expect(called.ok).toBe(false);
    expect(called.result).toMatchObject({ error: 'unknown_tool' });
    expect(await bob.api.contacts.refresh(bob.slug, A)).toEqual({ outcome: 'unchanged' });
  });

  it('reject blocks the request; unblock forgets it; a re-request after a decline is 403 (peers)', async () => {
    const [alice, bob] = await target().pair();
    await target().deliverRequest(alice, bob);
    expect(await bob.api.contacts.reject(bob.slug, alice.fingerprint)).toEqual({
      status: 'rejected',
      fingerprint: alice.fingerprint,
      notified: true,
    });
    expect(await statusesOf(bob)).toEqual({ [alice.fingerprint]: 'blocked' });
    if (target().capabilities.peers) {
      // The declining side is the other party's service: only real peers can answer this.
      expect(await statusesOf(alice)).toEqual({});
      const again = await expectApiError(
        alice.api.contacts.request(alice.slug, { card: bob.card }),
        403,
        'forbidden',
      );
      expect(again.message).toMatch(/declined/);
    }
    expect(await bob.api.contacts.unblock(bob.slug, alice.fingerprint)).toEqual({
      status: 'forgotten',
      fingerprint: alice.fingerprint,
    });
    expect(await statusesOf(bob)).toEqual({});
  });

  it('block is silent; unblock restores a former contact; requesting a blocked party is 403', async () => {
    const [alice, bob] = await target().pair();
    await target().deliverRequest(alice, bob);
    await bob.api.contacts.approve(bob.slug, alice.fingerprint);
    expect(await bob.api.contacts.block(bob.slug, alice.fingerprint)).toEqual({
      status: 'blocked',
      fingerprint: alice.fingerprint,
    });
    // Idempotent in effect: a repeat answers the same.
    expect(await bob.api.contacts.block(bob.slug, alice.fingerprint)).toEqual({
      status: 'blocked',
      fingerprint: alice.fingerprint,
    });
    await expectApiError(bob.api.contacts.request(bob.slug, { card: alice.card }), 403, 'forbidden');
    if (target().capabilities.peers) expect(await statusesOf(alice)).toEqual({ [bob.fingerprint]: 'active' });
    expect(await bob.api.contacts.unblock(bob.slug, alice.fingerprint)).toEqual({
      status: 'active',
      fingerprint: alice.fingerprint,
    });
    expect(await statusesOf(bob)).toEqual({ [alice.fingerprint]: 'active' });
  });

  it('remove takes the pin off both sides, a silent block on the other side included', async () => {
    const [alice, bob] = await target().pair();
    await target().deliverRequest(alice, bob);
    await bob.api.contacts.approve(bob.slug, alice.fingerprint);
    expect(await bob.api.contacts.remove(bob.slug, alice.fingerprint)).toEqual({
      status: 'removed',
      fingerprint: alice.fingerprint,
      notified: true,
    });
    expect(await statusesOf(bob)).toEqual({});
    if (target().capabilities.peers) {
      expect(await statusesOf(alice)).toEqual({});
      // Again, with alice blocking bob first: bob's removal still clears alice's side.
      await target().deliverRequest(alice, bob);
      await bob.api.contacts.approve(bob.slug, alice.fingerprint);
      await alice.api.contacts.block(alice.slug, bob.fingerprint);
      expect(await bob.api.contacts.remove(bob.slug, alice.fingerprint)).toMatchObject({ notified: true });
      expect(await statusesOf(alice)).toEqual({});
    }
  });

  it('a call in the wrong state, or about a party never seen, is 404', async () => {
    const [alice, bob] = await target().pair();
    await target().deliverRequest(alice, bob);
    const B = bob.fingerprint;
    // Alice's side is a request sent, not received, and not yet a contact.
    await expectApiError(alice.api.contacts.approve(alice.slug, B), 404, 'not_found');
    await expectApiError(alice.api.contacts.reject(alice.slug, B), 404, 'not_found');
    await expectApiError(alice.api.contacts.listTools(alice.slug, B), 404, 'not_found');
    await expectApiError(alice.api.contacts.notifyAcceptance(alice.slug, B), 404, 'not_found');
    await expectApiError(alice.api.contacts.unblock(alice.slug, B), 404, 'not_found');
    const ghost = `sha256:${'0'.repeat(64)}`;
    await expectApiError(
      alice.api.contacts.setPetname(alice.slug, ghost, { petname: 'x' }),
      404,
      'not_found',
    );
    await expectApiError(alice.api.contacts.remove(alice.slug, ghost), 404, 'not_found');
    await expectApiError(
      alice.api.contacts.request(alice.slug, { card: 'not a card' }),
      400,
      'invalid_request',
    );
    const rejectWithBody = await rawCall(target(), alice, 'POST', `${contactsOf(alice)}/${B}/reject`, {
      body: { reason: 'x' },
    });
    expect(rejectWithBody.status).toBe(400);
    const tellWithBody = await rawCall(target(), alice, 'POST', `${contactsOf(alice)}/${B}/tell-accepted`, {
      body: { again: true },
    });
    expect(tellWithBody.status).toBe(400);
  });

  it('idempotent replay, mismatch, and a refusal remembered as the first answer (spec part 4)', async () => {
    const [alice, bob] = await target().pair();
    await target().deliverRequest(alice, bob);
    const A = alice.fingerprint;
    const approvePath = `${contactsOf(bob)}/${A}/approve`;
    const first = await rawCall(target(), bob, 'POST', approvePath, {
      body: { preset: 'close' },
      headers: { 'idempotency-key': 'scenario-k1' },
    });
    expect(first.status).toBe(200);
    const again = await rawCall(target(), bob, 'POST', approvePath, {
      body: { preset: 'close' },
      headers: { 'idempotency-key': 'scenario-k1' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const mismatch = await rawCall(target(), bob, 'POST', approvePath, {
      body: { preset: 'muted' },
      headers: { 'idempotency-key': 'scenario-k1' },
    });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body).toMatchObject({ error: { code: 'idempotency_mismatch' } });

    // A refusal is the first answer too: the same call gets it again, another call with the key is 422.
    const ghost = `sha256:${'1'.repeat(64)}`;
    const refused = await rawCall(target(), bob, 'POST', `${contactsOf(bob)}/${ghost}/approve`, {
      body: {},
      headers: { 'idempotency-key': 'scenario-k3' },
    });
    expect(refused.status).toBe(404);
    const refusedAgain = await rawCall(target(), bob, 'POST', `${contactsOf(bob)}/${ghost}/approve`, {
      body: {},
      headers: { 'idempotency-key': 'scenario-k3' },
    });
    expect(refusedAgain.status).toBe(404);
    expect(refusedAgain.headers.get('idempotent-replayed')).toBe('true');
    const otherCall = await rawCall(target(), bob, 'POST', `${contactsOf(bob)}/${A}/tell-accepted`, {
      headers: { 'idempotency-key': 'scenario-k3' },
    });
    expect(otherCall.status).toBe(422);
    // Keys are 1 to 255 characters.
    const long = await rawCall(target(), bob, 'POST', `${contactsOf(bob)}/${A}/block`, {
      headers: { 'idempotency-key': 'k'.repeat(256) },
    });
    expect(long.status).toBe(400);
  });

  it('the bearer scheme is case-insensitive; another scheme is 401', async () => {
    const [alice] = await target().pair();
    const lower = await rawCall(target(), alice, 'GET', contactsOf(alice), {
      headers: { authorization: `bearer ${alice.key}` },
    });
    expect(lower.status).toBe(200);
    const basic = await rawCall(target(), alice, 'GET', contactsOf(alice), {
      headers: { authorization: `Basic ${alice.key}` },
    });
    expect(basic.status).toBe(401);
    expect(basic.body).toMatchObject({ error: { code: 'unauthenticated' } });
  });

  it('rate limit: the per-contact burst of 10 answers 429 with retry_after equal to Retry-After', async () => {
    const [alice, bob] = await target().pair();
    await target().deliverRequest(alice, bob);
    await bob.api.contacts.approve(bob.slug, alice.fingerprint);
    const answers: RawAnswer[] = [];
    for (let i = 0; i < 30 && answers.at(-1)?.status !== 429; i++) {
      answers.push(await rawCall(target(), bob, 'GET', `${contactsOf(bob)}/${alice.fingerprint}/tools`));
    }
    const limited = answers.at(-1);
    if (limited === undefined) throw new Error('no answer');
    expect(limited.status).toBe(429);
    // At least the burst went through first (the approval spent one token of it).
    expect(answers.length).toBeGreaterThanOrEqual(10);
    const retryAfter = (limited.body as { error: { retry_after: number } }).error.retry_after;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('retry-after')).toBe(String(retryAfter));
    expect(limited.body).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it('the strangers budget: every call to a party that is not an active contact counts, repeats included', async () => {
    const [alice, bob] = await target().pair();
    // 20 requests to the same party, which does not answer them (each a second apart: the per-contact
    // bucket refills, the hourly one does not).
    for (let i = 0; i < 20; i++) {
      expect((await alice.api.contacts.request(alice.slug, { card: bob.card })).status).toBe('pending');
      target().advanceClock(1000);
    }
    const limited = await rawCall(target(), alice, 'POST', contactsOf(alice), { body: { card: bob.card } });
    expect(limited.status).toBe(429);
    const error = (limited.body as { error: { message: string; retry_after: number } }).error;
    expect(error.message).toMatch(/not active contacts/);
    // 20 per hour: about 3 minutes until a whole token is back (clock skew between calls aside).
    expect(error.retry_after).toBeGreaterThan(150);
    expect(error.retry_after).toBeLessThanOrEqual(180);
    expect(limited.headers.get('retry-after')).toBe(String(error.retry_after));
    // Bob's service keeps the same budget for strangers calling him, spent a few milliseconds after
    // Alice's: one second more than she is told to wait lets his refill too, whatever the rounding.
    target().advanceClock((error.retry_after + 1) * 1000);
    expect((await alice.api.contacts.request(alice.slug, { card: bob.card })).status).toBe('pending');
  });
}
