import { describe, expect, it } from 'vitest';
import { deleteContact } from '../../src/store/queries/contacts.js';
import { BACKENDS } from '../support/backends.js';
import type { StoredEvent } from '../support/endpoints.js';
import { createParty, eventsFrom, type Instance, statusesOf, TestClock, useTwoInstances } from './support.js';

async function eventsOf(taken: () => Promise<StoredEvent[]>): Promise<{ type: string; contact: unknown }[]> {
  return (await taken()).map((row) => ({
    type: row.type,
    contact: (JSON.parse(row.body) as { data: { contact: unknown } }).data.contact,
  }));
}

/** Two instances, each with its own database, talking the peer protocol over loopback. */
describe.each(BACKENDS)('contacts between two instances on $name', (backend) => {
  const clock = new TestClock();
  let one: Instance;
  let two: Instance;
  useTwoInstances(backend, clock, (first, second) => {
    one = first;
    two = second;
  });

  it('hands out a verifiable card on the public card route', async () => {
    const bob = await createParty(two, 'bob');
    const response = await fetch(`${two.baseUrl}/peer/v1/identities/${bob.fingerprint}/card`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ card: bob.card });
    expect(bob.card).toMatch(/^svc-card\.v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(bob.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('runs request, approve, tools, update, block, remove, reject and unblock across instances', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    const A = alice.fingerprint;
    const B = bob.fingerprint;
    const [aliceEvents, bobEvents] = [await eventsFrom(alice), await eventsFrom(bob)];

    // request → pending on both sides
    const asked = await alice.api.contacts.request(alice.slug, { card: bob.card, note: 'hello' });
    expect(asked).toEqual({
      status: 'pending',
      contact: { fingerprint: B, endpoint: `${two.baseUrl}/peer/v1`, display_name: bob.slug },
    });
    expect(await statusesOf(alice)).toEqual({ [B]: 'pending_out' });
    expect(await statusesOf(bob)).toEqual({ [A]: 'pending_in' });
    expect(await alice.api.contacts.list(alice.slug, { status: 'pending_in' })).toEqual({ contacts: [] });
    clock.advance(1000);

    // approve with a preset → active on both sides, the requester was told
    expect(await bob.api.contacts.approve(bob.slug, A, { preset: 'colleague' })).toEqual({
      status: 'approved',
      fingerprint: A,
      preset: 'colleague',
      notified: true,
    });
    expect(await statusesOf(alice)).toEqual({ [B]: 'active' });
    const bobsView = (await bob.api.contacts.list(bob.slug, { status: 'active' })).contacts;
    expect(bobsView).toEqual([
      {
        fingerprint: A,
        display_name: alice.slug,
        status: 'active',
        preset: 'colleague',
        permissions: ['messages:receive', 'tools:list'],
        trust_flag: 'messages_only',
        petname: '',
        last_seen_at: clock.at,
        created_at: clock.at - 1000,
        endpoint: `${one.baseUrl}/peer/v1`,
        address_claim: null,
        acceptance_unheard_since: null,
      },
    ]);
    clock.advance(1000);

    // tools reach the peer, which offers none yet
    expect(await alice.api.contacts.listTools(alice.slug, B)).toEqual({ tools: [] });
    const called = await alice.api.contacts.callTool(alice.slug, B, { tool: 'search', arguments: { q: 1 } });
    expect(called.ok).toBe(false);
    expect(called.result).toMatchObject({ error: 'unknown_tool' });

    // update, petname, trust: local only
    const updated = await alice.api.contacts.update(alice.slug, B, { preset: 'close' });
    expect(updated.contact).toMatchObject({
      preset: 'close',
      permissions: ['messages:receive', 'tools:list', 'tools:call'],
    });
    const switched = await alice.api.contacts.update(alice.slug, B, { permissions: ['x', 'x', 'y'] });
    expect(switched.contact).toMatchObject({ preset: 'close', permissions: ['x', 'y'] });
    expect(await alice.api.contacts.setPetname(alice.slug, B, { petname: 'Bobby' })).toBeNull();
    expect(await alice.api.contacts.setTrust(alice.slug, B, { trust: 'may_instruct' })).toBeNull();
    expect((await alice.api.contacts.list(alice.slug)).contacts[0]).toMatchObject({
      petname: 'Bobby',
      trust_flag: 'may_instruct',
      status: 'active',
    });
    expect(await statusesOf(bob)).toEqual({ [A]: 'active' });
    expect(await alice.api.contacts.refresh(alice.slug, B)).toEqual({ outcome: 'unchanged' });

    // a block is silent; unblocking a former contact makes it active again
    expect(await bob.api.contacts.block(bob.slug, A)).toEqual({ status: 'blocked', fingerprint: A });
    expect(await statusesOf(bob)).toEqual({ [A]: 'blocked' });
    expect(await statusesOf(alice)).toEqual({ [B]: 'active' });
    // Events are stamped by the test clock: each step that records one moves it, so their order is theirs.
    clock.advance(1000);
    expect(await bob.api.contacts.unblock(bob.slug, A)).toEqual({ status: 'active', fingerprint: A });
    expect(await statusesOf(bob)).toEqual({ [A]: 'active' });
    clock.advance(1000);

    // remove goes on both sides
    expect(await alice.api.contacts.remove(alice.slug, B)).toEqual({
      status: 'removed',
      fingerprint: B,
      notified: true,
    });
    expect(await statusesOf(alice)).toEqual({});
    expect(await statusesOf(bob)).toEqual({});
    clock.advance(1000);

    // a rejected party cannot knock again, until the rejection is lifted (forgotten)
    await alice.api.contacts.request(alice.slug, { card: bob.card });
    clock.advance(1000);
    expect(await bob.api.contacts.reject(bob.slug, A)).toEqual({
      status: 'rejected',
      fingerprint: A,
      notified: true,
    });
    expect(await statusesOf(alice)).toEqual({});
    expect(await statusesOf(bob)).toEqual({ [A]: 'blocked' });
    clock.advance(1000);
    // a policy refusal (the other side declined): 403, not a bad argument
    await expect(alice.api.contacts.request(alice.slug, { card: bob.card })).rejects.toMatchObject({
      status: 403,
      code: 'forbidden',
      message: expect.stringContaining('declined'),
    });
    expect(await statusesOf(alice)).toEqual({});
    expect(await bob.api.contacts.unblock(bob.slug, A)).toEqual({ status: 'forgotten', fingerprint: A });
    expect(await statusesOf(bob)).toEqual({});
    clock.advance(1000);

    // asking someone who already asked us makes both active at once
    expect((await alice.api.contacts.request(alice.slug, { card: bob.card })).status).toBe('pending');
    expect(await statusesOf(bob)).toEqual({ [A]: 'pending_in' });
    clock.advance(1000);
    expect((await bob.api.contacts.request(bob.slug, { card: alice.card })).status).toBe('active');
    expect(await statusesOf(alice)).toEqual({ [B]: 'active' });
    expect(await statusesOf(bob)).toEqual({ [A]: 'active' });

    // every change was recorded as an event naming the contact by fingerprint
    expect((await eventsOf(aliceEvents)).map((event) => event.type)).toEqual([
      'contact.requested',
      'contact.approved',
      'contact.updated',
      'contact.updated',
      'contact.updated',
      'contact.updated',
      'contact.removed',
      'contact.requested',
      'contact.rejected',
      'contact.requested',
      'contact.approved',
    ]);
    expect((await eventsOf(bobEvents)).map((event) => event.type)).toEqual([
      'contact.requested',
      'contact.approved',
      'contact.blocked',
      'contact.unblocked',
      'contact.removed',
      'contact.requested',
      'contact.rejected',
      'contact.unblocked',
      'contact.requested',
      'contact.approved',
    ]);
    expect(new Set((await eventsOf(bobEvents)).map((event) => event.contact))).toEqual(new Set([A]));
  });

  it('keeps its own change when the peer is down and reports it, then tells it again', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    await bob.api.contacts.request(bob.slug, { card: alice.card });
    clock.advance(1000);
    await two.stop();
    try {
      expect(await alice.api.contacts.approve(alice.slug, bob.fingerprint)).toEqual({
        status: 'approved',
        fingerprint: bob.fingerprint,
        preset: 'basic',
        notified: false,
      });
      const [contact] = (await alice.api.contacts.list(alice.slug)).contacts;
      expect(contact).toMatchObject({ status: 'active', acceptance_unheard_since: clock.at });
      const refreshed = await alice.api.contacts.refresh(alice.slug, bob.fingerprint);
      expect(refreshed.outcome).toBe('unreachable');
      expect(refreshed.why).toEqual(expect.any(String));
      expect(await alice.api.contacts.notifyAcceptance(alice.slug, bob.fingerprint)).toEqual({
        fingerprint: bob.fingerprint,
        notified: false,
        refusal: null,
      });
      await expect(alice.api.contacts.listTools(alice.slug, bob.fingerprint)).rejects.toMatchObject({
        status: 503,
        code: 'service_unavailable',
      });
    } finally {
      await two.restart();
    }
    clock.advance(1000);
    expect(await statusesOf(bob)).toEqual({ [alice.fingerprint]: 'pending_out' });
    expect(await alice.api.contacts.notifyAcceptance(alice.slug, bob.fingerprint)).toEqual({
      fingerprint: bob.fingerprint,
      notified: true,
      refusal: null,
    });
    expect(await statusesOf(bob)).toEqual({ [alice.fingerprint]: 'active' });
    expect((await alice.api.contacts.list(alice.slug)).contacts[0]?.acceptance_unheard_since).toBeNull();

    // the other side forgot us: the acceptance is refused and the refusal reported
    await deleteContact(two.ctx.db, bob.identityId, alice.fingerprint);
    clock.advance(1000);
    expect(await alice.api.contacts.notifyAcceptance(alice.slug, bob.fingerprint)).toEqual({
      fingerprint: bob.fingerprint,
      notified: false,
      refusal: 'not_requested',
    });

    // removal while the peer is down still removes here
    await two.stop();
    try {
      clock.advance(1000);
      expect(await alice.api.contacts.remove(alice.slug, bob.fingerprint)).toEqual({
        status: 'removed',
        fingerprint: bob.fingerprint,
        notified: false,
      });
      expect(await statusesOf(alice)).toEqual({});
      // a request to a party whose service is down stores nothing
      await expect(alice.api.contacts.request(alice.slug, { card: bob.card })).rejects.toMatchObject({
        status: 503,
      });
      expect(await statusesOf(alice)).toEqual({});
    } finally {
      await two.restart();
    }
  });

  it('works between two identities of one instance, over HTTP', async () => {
    const alice = await createParty(one, 'alice');
    const carol = await createParty(one, 'carol');
    await alice.api.contacts.request(alice.slug, { card: carol.card });
    clock.advance(1000);
    const approved = await carol.api.contacts.approve(carol.slug, alice.fingerprint, undefined, {
      idempotencyKey: 'same-instance-approve',
    });
    expect(approved.notified).toBe(true);
    expect(await statusesOf(alice)).toEqual({ [carol.fingerprint]: 'active' });
    expect(await statusesOf(carol)).toEqual({ [alice.fingerprint]: 'active' });
  });
});
