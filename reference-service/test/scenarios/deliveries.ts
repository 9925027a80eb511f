import { FAILURES_BEFORE_PAUSE, type WebhookDelivery } from '@svc-kit/contract';
import { HEADER_NAMES, parseSignatureHeader, verify } from '@svc-kit/webhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Received, type Receiver, startReceiver } from './receiver.js';
import type { Party, Target } from './target.js';

const SETTLED_WITHIN_MS = 20_000;

/** The log of an endpoint once it holds `count` rows, none still waiting or on the wire. */
async function settledLog(party: Party, endpointId: string, count: number): Promise<WebhookDelivery[]> {
  const deadline = Date.now() + SETTLED_WITHIN_MS;
  for (;;) {
    const { deliveries } = await party.api.webhooks.listDeliveries(endpointId, { limit: 100 });
    const settled = deliveries.every((row) => row.status !== 'pending' && row.status !== 'sending');
    if ((deliveries.length >= count && settled) || Date.now() > deadline) return deliveries;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const eventOf = (request: Received) => JSON.parse(request.body) as { id: string; type: string };
const typesAt = (receiver: Receiver, path: string) =>
  receiver.received.filter((request) => request.path === path).map((request) => eventOf(request).type);

/**
 * The delivery contract of spec part 6, as an app under test sees it: a receiver on loopback gets each
 * event of the party's changes once, signed as the SDK verifies, and the log shows the real outcome.
 */
export function deliveryScenarios(target: () => Target): void {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('each event once to a receiver on loopback: signed (two v1 during a rotation), the log’s real outcome', async () => {
    const [alice, bob] = await target().pair();
    await target().setWebhooksEnabled(bob, true);
    receiver.answer(200, 'thanks');
    const url = `${receiver.origin}/signed`;
    const { endpoint, secret } = await target().sessionClient(bob).webhooks.create({ url });
    await target().deliverRequest(alice, bob);
    await settledLog(bob, endpoint.id, 1);
    const { secret: rotated } = await bob.api.webhooks.rotateSecret(endpoint.id);
    await bob.api.contacts.approve(bob.slug, alice.fingerprint);
    const log = await settledLog(bob, endpoint.id, 2);

    const requests = receiver.received.filter((request) => request.path === '/signed');
    expect(requests.map((request) => eventOf(request).type)).toEqual([
      'contact.requested',
      'contact.approved',
    ]);
    for (const [index, request] of requests.entries()) {
      const event = verify(request.body, request.headers, { secret: index === 0 ? secret : rotated });
      expect(event).toMatchObject({ identity: bob.slug, data: { contact: alice.fingerprint } });
      expect(Object.keys(JSON.parse(request.body))).toEqual(['id', 'type', 'created_at', 'identity', 'data']);
      expect(request.headers[HEADER_NAMES.eventId]).toBe(event.id);
      expect(request.headers[HEADER_NAMES.eventType]).toBe(event.type);
      expect(request.headers['content-type']).toBe('application/json');
      const row = log.find((candidate) => candidate.event_id === event.id);
      expect(request.headers[HEADER_NAMES.delivery]).toBe(row?.id);
      expect(row).toMatchObject({
        endpoint_id: endpoint.id,
        event_type: event.type,
        attempt: 1,
        status: 'delivered',
        http_status: 200,
        response_excerpt: 'thanks',
        next_attempt_at: null,
      });
      expect(row?.latency_ms).toBeGreaterThanOrEqual(0);
    }
    // During the rotation both secrets sign, the new one's first: either verifies on its own.
    const during = requests[1]!;
    const signature = String(during.headers[HEADER_NAMES.signature]);
    expect(parseSignatureHeader(signature).signatures).toHaveLength(2);
    expect(verify(during.body, during.headers, { secret })).toBeDefined();
    const newOnly = signature.split(',').slice(0, 2).join(',');
    const headers = { ...during.headers, [HEADER_NAMES.signature]: newOnly };
    expect(verify(during.body, headers, { secret: rotated })).toBeDefined();
    expect(() => verify(during.body, headers, { secret })).toThrow();

    // The log's filters (ours, owned by the contract): each narrows, and they combine.
    const approved = log.find((row) => row.event_type === 'contact.approved')!;
    const filtered = async (filter: Parameters<typeof bob.api.webhooks.listDeliveries>[1]) =>
      (await bob.api.webhooks.listDeliveries(endpoint.id, { limit: 10, ...filter })).deliveries;
    expect(await filtered({ event_type: 'contact.approved' })).toEqual([approved]);
    expect(await filtered({ event_id: approved.event_id })).toEqual([approved]);
    expect(await filtered({ status: 'delivered' })).toEqual(log);
    expect(await filtered({ status: 'failed' })).toEqual([]);
    expect(await filtered({ event_id: approved.event_id, status: 'failed' })).toEqual([]);
    expect(await filtered({ event_id: 'evt_unknown' })).toEqual([]);
  });

  it('the filter, the endpoint’s creation time and webhooks_enabled decide what is sent', async () => {
    const [alice, bob] = await target().pair();
    await target().setWebhooksEnabled(bob, true);
    receiver.answer(204, '');
    const session = target().sessionClient(bob);
    const early = await session.webhooks.create({ url: `${receiver.origin}/early` });
    const filtered = await session.webhooks.create({
      url: `${receiver.origin}/filtered`,
      events: ['contact.approved'],
    });
    await target().deliverRequest(alice, bob);
    target().advanceClock(1);
    // Created after the request's event: it never receives it.
    const late = await session.webhooks.create({ url: `${receiver.origin}/late` });
    await target().setWebhooksEnabled(bob, false);
    await bob.api.contacts.setPetname(bob.slug, alice.fingerprint, { petname: 'while off' });
    await target().setWebhooksEnabled(bob, true);
    await bob.api.contacts.approve(bob.slug, alice.fingerprint);

    expect((await settledLog(bob, early.endpoint.id, 2)).map((row) => row.event_type).sort()).toEqual([
      'contact.approved',
      'contact.requested',
    ]);
    expect((await settledLog(bob, filtered.endpoint.id, 1)).map((row) => row.status)).toEqual(['delivered']);
    expect((await settledLog(bob, late.endpoint.id, 1)).map((row) => row.http_status)).toEqual([204]);
    expect(typesAt(receiver, '/early')).toEqual(['contact.requested', 'contact.approved']);
    expect(typesAt(receiver, '/filtered')).toEqual(['contact.approved']);
    expect(typesAt(receiver, '/late')).toEqual(['contact.approved']);
  });

  it('each changing operation records the service’s event; a repeat that changes nothing records none', async () => {
    const [alice, bob] = await target().pair();
    await target().setWebhooksEnabled(bob, true);
    receiver.answer(200, 'ok');
    const path = '/every-operation';
    const { endpoint } = await target()
      .sessionClient(bob)
      .webhooks.create({ url: `${receiver.origin}${path}` });
    const A = alice.fingerprint;
    await target().deliverRequest(alice, bob);
    await bob.api.contacts.approve(bob.slug, A);
    await bob.api.contacts.update(bob.slug, A, { preset: 'close' });
    await bob.api.contacts.update(bob.slug, A, { preset: 'close' });
    await bob.api.contacts.setPetname(bob.slug, A, { petname: 'Al' });
    await bob.api.contacts.setPetname(bob.slug, A, { petname: 'Al' });
    await bob.api.contacts.setTrust(bob.slug, A, { trust: 'may_instruct' });
    await bob.api.contacts.block(bob.slug, A);
    await bob.api.contacts.block(bob.slug, A);
    await bob.api.contacts.unblock(bob.slug, A);
    await bob.api.contacts.remove(bob.slug, A);
    const { integration } = await bob.api.integrations.create(bob.slug, {
      catalogue: target().catalogueEntry,
    });
    await bob.api.integrations.setExposure(bob.slug, integration.slug, { entries: [] });
    await bob.api.integrations.delete(bob.slug, integration.slug);

    const log = await settledLog(bob, endpoint.id, 11);
    expect(log.map((row) => row.status)).toEqual(Array(11).fill('delivered'));
    const events = receiver.received
      .filter((request) => request.path === path)
      .map((request) => JSON.parse(request.body) as { type: string; identity: string; data: object });
    expect(events.every((event) => event.identity === bob.slug)).toBe(true);
    expect(events.map((event) => event.type).sort()).toEqual([
      'contact.approved',
      'contact.blocked',
      'contact.removed',
      'contact.requested',
      'contact.unblocked',
      'contact.updated',
      'contact.updated',
      'contact.updated',
      'integration.created',
      'integration.deleted',
      'integration.exposure_updated',
    ]);
    const dataOf = (type: string) => events.filter((event) => event.type === type).map((event) => event.data);
    expect(dataOf('contact.blocked')).toEqual([{ contact: A }]);
    expect(dataOf('integration.exposure_updated')).toEqual([{ integration: integration.slug, version: 1 }]);
    expect(dataOf('integration.deleted')).toEqual([{ integration: integration.slug }]);
  });

  it(`${FAILURES_BEFORE_PAUSE} consecutive failures pause the endpoint; resumed, one more pauses it, a success clears the run`, async () => {
    const [alice, bob] = await target().pair();
    await target().setWebhooksEnabled(bob, true);
    await target().deliverRequest(alice, bob);
    receiver.answer(500, 'x'.repeat(600));
    const url = `${receiver.origin}/failing`;
    const { endpoint } = await target()
      .sessionClient(bob)
      .webhooks.create({ url, events: ['contact.updated'] });
    for (let i = 0; i < FAILURES_BEFORE_PAUSE; i++) {
      await bob.api.contacts.setPetname(bob.slug, alice.fingerprint, { petname: `try ${i}` });
    }
    const log = await settledLog(bob, endpoint.id, FAILURES_BEFORE_PAUSE);
    expect(log).toHaveLength(FAILURES_BEFORE_PAUSE);
    for (const row of log) {
      expect(row).toMatchObject({ status: 'failed', http_status: 500, response_excerpt: 'x'.repeat(500) });
    }
    expect(typesAt(receiver, '/failing')).toHaveLength(FAILURES_BEFORE_PAUSE);
    const [paused] = (await bob.api.webhooks.list()).endpoints;
    expect(paused).toMatchObject({ status: 'paused', consecutive_failures: FAILURES_BEFORE_PAUSE });

    // Paused: an event gets no delivery at all.
    await bob.api.contacts.setPetname(bob.slug, alice.fingerprint, { petname: 'paused' });
    expect((await bob.api.webhooks.listDeliveries(endpoint.id, { limit: 100 })).deliveries).toHaveLength(
      FAILURES_BEFORE_PAUSE,
    );
    // Resumed on probation: the run is kept one short of the pause, so the next failure pauses it again.
    const probation = { status: 'active', consecutive_failures: FAILURES_BEFORE_PAUSE - 1 };
    const resumed = await bob.api.webhooks.setStatus(endpoint.id, { status: 'active' });
    expect(resumed.endpoints[0]).toMatchObject(probation);
    await bob.api.contacts.setPetname(bob.slug, alice.fingerprint, { petname: 'still failing' });
    await settledLog(bob, endpoint.id, FAILURES_BEFORE_PAUSE + 1);
    expect((await bob.api.webhooks.list()).endpoints[0]).toMatchObject({
      status: 'paused',
      consecutive_failures: FAILURES_BEFORE_PAUSE,
    });
    expect((await bob.api.webhooks.setStatus(endpoint.id, { status: 'active' })).endpoints[0]).toMatchObject(
      probation,
    );
    receiver.answer(200, 'back');
    await bob.api.contacts.setPetname(bob.slug, alice.fingerprint, { petname: 'resumed' });
    const after = await settledLog(bob, endpoint.id, FAILURES_BEFORE_PAUSE + 2);
    expect(after.filter((row) => row.status === 'delivered')).toHaveLength(1);
    expect((await bob.api.webhooks.list()).endpoints[0]).toMatchObject({
      status: 'active',
      consecutive_failures: 0,
    });
  });
}
