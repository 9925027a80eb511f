import { describe, expect, it } from 'vitest';
import { CARD_VALIDITY_MS } from '../../src/peer/card.js';
import { getContact } from '../../src/store/queries/contacts.js';
import { BACKENDS } from '../support/backends.js';
import type { StoredEvent } from '../support/endpoints.js';
import {
  befriend,
  createParty,
  eventsFrom,
  type Instance,
  type Party,
  TestClock,
  useTwoInstances,
} from './support.js';

const DAY_MS = 24 * 60 * 60 * 1000;

async function storedContact(party: Party, fingerprint: string) {
  const row = await getContact(party.instance.ctx.db, party.identityId, fingerprint);
  if (!row) throw new Error(`no contact ${fingerprint} stored for ${party.slug}`);
  return row;
}

async function contactEventsOf(taken: () => Promise<StoredEvent[]>): Promise<string[]> {
  return (await taken()).map((row) => row.type);
}

/** Refresh fetches the contact's current card from its service and says how it differs from the stored one. */
describe.each(BACKENDS)('refreshing a contact on $name', (backend) => {
  const clock = new TestClock();
  let one: Instance;
  let two: Instance;
  useTwoInstances(backend, clock, (first, second) => {
    one = first;
    two = second;
  });

  it('reads renewed when the peer re-issued the same card with a later expiry', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    const aliceEvents = await eventsFrom(alice);
    await befriend(alice, bob);
    const before = await storedContact(alice, bob.fingerprint);
    expect(await alice.api.contacts.refresh(alice.slug, bob.fingerprint)).toEqual({ outcome: 'unchanged' });

    // Past half of the card's validity, bob's service hands out a new card: same name and endpoint.
    clock.advance(CARD_VALIDITY_MS / 2 + DAY_MS);
    const eventsBefore = await contactEventsOf(aliceEvents);
    expect(await alice.api.contacts.refresh(alice.slug, bob.fingerprint)).toEqual({ outcome: 'renewed' });
    const after = await storedContact(alice, bob.fingerprint);
    expect(after.card_expires_at).toBe(clock.at + CARD_VALIDITY_MS);
    expect(after.card_expires_at).toBeGreaterThan(before.card_expires_at);
    expect(after.card).not.toBe(before.card);
    expect(after).toMatchObject({
      display_name: before.display_name,
      endpoint: before.endpoint,
      last_seen_at: clock.at,
      updated_at: clock.at,
    });
    // A renewal changes nothing a subscriber acts on: no contact.updated event.
    expect(await contactEventsOf(aliceEvents)).toEqual(eventsBefore);

    clock.advance(1000);
    expect(await alice.api.contacts.refresh(alice.slug, bob.fingerprint)).toEqual({ outcome: 'unchanged' });
  });

  it('reads updated when the peer’s card names another endpoint, and uses the new one', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    const aliceEvents = await eventsFrom(alice);
    await befriend(alice, bob);
    const before = await storedContact(alice, bob.fingerprint);
    expect(before.endpoint).toBe(`${two.baseUrl}/peer/v1`);
    const eventsBefore = await contactEventsOf(aliceEvents);

    // Bob's service now names itself by another URL (its SVC_PUBLIC_URL changed); the old one still answers.
    const moved = `http://localhost:${two.port}`;
    await two.stop();
    await two.restart({ publicUrl: moved });
    try {
      clock.advance(1000);
      expect(await alice.api.contacts.refresh(alice.slug, bob.fingerprint)).toEqual({ outcome: 'updated' });
      const after = await storedContact(alice, bob.fingerprint);
      expect(after).toMatchObject({
        endpoint: `${moved}/peer/v1`,
        display_name: bob.slug,
        last_seen_at: clock.at,
        updated_at: clock.at,
      });
      expect(after.card).not.toBe(before.card);
      expect(after.card_expires_at).toBe(clock.at + CARD_VALIDITY_MS);
      const [listed] = (await alice.api.contacts.list(alice.slug)).contacts;
      expect(listed).toMatchObject({ endpoint: `${moved}/peer/v1`, status: 'active' });
      expect(await contactEventsOf(aliceEvents)).toEqual([...eventsBefore, 'contact.updated']);

      // Later calls go to the new endpoint (through the guarded client, `localhost` under the sandbox opt-in).
      expect(await alice.api.contacts.listTools(alice.slug, bob.fingerprint)).toEqual({ tools: [] });
      clock.advance(1000);
      expect(await alice.api.contacts.refresh(alice.slug, bob.fingerprint)).toEqual({
        outcome: 'unchanged',
      });
    } finally {
      await two.stop();
      await two.restart();
    }
  });
});
