import { createServer, type IncomingMessage, type Server } from 'node:http';
import { FAILURES_BEFORE_PAUSE, NOT_SENT_PAUSED, NOT_SENT_REMOVED } from '@svc-kit/contract';
import { HEADER_NAMES, verify, Webhooks } from '@svc-kit/webhooks';
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createSandbox, parseSandboxCard, type SentDelivery, sandboxFingerprint } from '../src/index.js';
import { ALICE, apiKeyClient, BASE_URL, BOB, newcomerCard, SLUG, sessionClient } from './support.js';

const HOOK = 'https://app.example.org/hooks';
let now = 1_700_000_000_000;
const received: Request[] = [];
let answer: (request: Request) => Response | Promise<Response> = () => new Response('ok');

const sandbox = createSandbox({
  baseUrl: BASE_URL,
  now: () => now,
  randomSeed: 'deliveries',
  delivery: {
    allowLoopback: true,
    timeoutMs: 2_000,
    receivers: {
      [HOOK]: (request) => {
        received.push(request.clone());
        return answer(request);
      },
    },
  },
  data: {
    identities: {
      [SLUG]: {
        contacts: [
          { fingerprint: ALICE, display_name: 'Alice' },
          { fingerprint: BOB, display_name: 'Bob', status: 'pending_in' },
        ],
      },
    },
  },
});
const server = setupServer(...sandbox.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(async () => {
  await sandbox.deliveries.settled();
  sandbox.reset();
  received.length = 0;
  answer = () => new Response('ok');
});
afterAll(() => server.close());

const client = apiKeyClient();
const portal = sessionClient();

async function endpoint(url = HOOK, events: string[] = []) {
  return portal.webhooks.create({ url, events: events as never });
}

function verified(sent: SentDelivery, secret: string | string[]) {
  return verify(sent.body, sent.headers, { secret, now: () => now });
}

describe('operations record the service’s events and the sandbox delivers them, signed', () => {
  test('approve: contact.approved reaches the in-process receiver, verifiable, and the log fills', async () => {
    const { endpoint: created, secret } = await endpoint();
    await client.contacts.approve(SLUG, BOB, { preset: 'colleague' });
    await sandbox.deliveries.settled();

    const [sent] = sandbox.deliveries.sent();
    expect(sandbox.deliveries.sent()).toHaveLength(1);
    const event = verified(sent!, secret);
    expect(event).toMatchObject({
      type: 'contact.approved',
      identity: SLUG,
      created_at: now,
      data: { contact: BOB },
    });
    expect(Object.keys(JSON.parse(sent!.body))).toEqual(['id', 'type', 'created_at', 'identity', 'data']);
    expect(sent!.headers[HEADER_NAMES.eventId]).toBe(event.id);
    const request = received[0]!;
    expect(request.method).toBe('POST');
    expect(request.headers.get(HEADER_NAMES.eventType)).toBe('contact.approved');
    expect(request.headers.get(HEADER_NAMES.delivery)).toBe(sent!.deliveryId);
    expect(request.headers.get(HEADER_NAMES.signature)).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(await request.text()).toBe(sent!.body);

    const { deliveries } = await client.webhooks.listDeliveries(created.id, { limit: 10 });
    expect(deliveries).toEqual([
      {
        id: sent!.deliveryId,
        endpoint_id: created.id,
        event_id: event.id,
        event_type: 'contact.approved',
        attempt: 1,
        status: 'delivered',
        http_status: 200,
        latency_ms: 0,
        response_excerpt: 'ok',
        next_attempt_at: null,
        created_at: now,
      },
    ]);
    expect(sent!.outcome).toEqual(deliveries[0]);
  });

  test('each changing operation records its event; a repeat that changes nothing records none', async () => {
    await endpoint();
    await client.contacts.update(SLUG, ALICE, { preset: 'close' });
    await client.contacts.update(SLUG, ALICE, { preset: 'close' });
    await client.contacts.setPetname(SLUG, ALICE, { petname: 'Al' });
    await client.contacts.block(SLUG, ALICE);
    await client.contacts.block(SLUG, ALICE);
    await client.contacts.unblock(SLUG, ALICE);
    await client.contacts.reject(SLUG, BOB);
    await client.contacts.request(SLUG, { card: newcomerCard });
    await client.contacts.remove(SLUG, ALICE);
    await client.integrations.create(SLUG, { endpoint: 'https://tools.example.org/mcp', slug: 'tools' });
    await client.integrations.setExposure(SLUG, 'tools', { entries: [] });
    await client.integrations.delete(SLUG, 'tools');
    await client.webhooks.list();
    await sandbox.deliveries.settled();
    const events = sandbox.deliveries.sent().map((sent) => [sent.event.type, sent.event.data]);
    expect(events).toEqual([
      ['contact.updated', { contact: ALICE }],
      ['contact.updated', { contact: ALICE }],
      ['contact.blocked', { contact: ALICE }],
      ['contact.unblocked', { contact: ALICE }],
      ['contact.rejected', { contact: BOB }],
      ['contact.requested', { contact: parseSandboxCard(newcomerCard)!.fingerprint }],
      ['contact.removed', { contact: ALICE }],
      ['integration.created', { integration: 'tools' }],
      ['integration.exposure_updated', { integration: 'tools', version: 1 }],
      ['integration.deleted', { integration: 'tools' }],
    ]);
  });

  test('a refused call and a replayed idempotent call record nothing', async () => {
    await endpoint();
    await expect(client.contacts.approve(SLUG, ALICE)).rejects.toThrow();
    const key = { idempotencyKey: 'approve-bob' };
    await client.contacts.approve(SLUG, BOB, undefined, key);
    await client.contacts.approve(SLUG, BOB, undefined, key);
    await sandbox.deliveries.settled();
    expect(sandbox.deliveries.sent().map((sent) => sent.event.type)).toEqual(['contact.approved']);
  });
});

describe('the delivery contract', () => {
  test('the filter, the creation time and webhooks_enabled decide who receives an event', async () => {
    await sandbox.emit('integration.created', { identity: SLUG });
    now += 1;
    const all = await endpoint();
    const filtered = await endpoint('https://other.example.org/hooks', ['contact.blocked']);
    sandbox.deliveries.receive('https://other.example.org/hooks', () => new Response(null, { status: 204 }));
    await sandbox.emit('integration.deleted', { identity: SLUG });
    await sandbox.emit('contact.blocked', { identity: SLUG });
    await sandbox.deliveries.settled();
    const to = (id: string) =>
      sandbox.deliveries
        .sent()
        .filter((sent) => sent.endpointId === id)
        .map((sent) => sent.event.type);
    // The event from before the endpoints existed is never sent.
    expect(to(all.endpoint.id)).toEqual(['integration.deleted', 'contact.blocked']);
    expect(to(filtered.endpoint.id)).toEqual(['contact.blocked']);

    sandbox.seed({ workspace: { webhooksEnabled: false } });
    sandbox.emit('contact.blocked', { identity: SLUG });
    sandbox.seed({ workspace: { webhooksEnabled: true } });
    await sandbox.deliveries.settled();
    // Recorded while off: no delivery, not even once the flag is on again.
    expect(sandbox.deliveries.sent()).toHaveLength(3);
    expect(sandbox.state.deliveries(filtered.endpoint.id)).toHaveLength(1);
  });

  test('during a rotation the header carries two v1 values, the new secret’s first', async () => {
    const { endpoint: created, secret: first } = await endpoint();
    const { secret: second } = await client.webhooks.rotateSecret(created.id);
    sandbox.emit('contact.approved', { identity: SLUG });
    await sandbox.deliveries.settled();
    const [sent] = sandbox.deliveries.sent();
    const header = sent!.headers[HEADER_NAMES.signature]!;
    expect(header.split(',')).toHaveLength(3);
    expect(verified(sent!, first)).toBeDefined();
    expect(verified(sent!, second)).toBeDefined();
    const single = {
      ...sent!,
      headers: { ...sent!.headers, [HEADER_NAMES.signature]: header.split(',').slice(0, 2).join(',') },
    };
    expect(verified(single, second)).toBeDefined();
    expect(() => verified(single, first)).toThrow();

    now += 24 * 60 * 60 * 1000 + 1;
    sandbox.emit('contact.approved', { identity: SLUG });
    await sandbox.deliveries.settled();
    expect(sandbox.deliveries.sent()[1]!.headers[HEADER_NAMES.signature]!.split(',')).toHaveLength(2);
  });

  test(`${FAILURES_BEFORE_PAUSE} consecutive failures pause the endpoint; rows already queued are not sent`, async () => {
    const { endpoint: created } = await endpoint();
    answer = () => new Response('x'.repeat(600), { status: 503 });
    for (let i = 0; i < FAILURES_BEFORE_PAUSE + 2; i++)
      sandbox.emit('integration.created', { identity: SLUG });
    await sandbox.deliveries.settled();
    expect(received).toHaveLength(FAILURES_BEFORE_PAUSE);
    const [listed] = (await client.webhooks.list()).endpoints;
    expect(listed).toMatchObject({ status: 'paused', consecutive_failures: FAILURES_BEFORE_PAUSE });
    const log = await client.webhooks.listDeliveries(created.id, { limit: 100 });
    const dialled = log.deliveries.filter((row) => row.http_status === 503);
    expect(dialled).toHaveLength(FAILURES_BEFORE_PAUSE);
    expect(dialled[0]!.response_excerpt).toBe('x'.repeat(500));
    // Never dialled: their own status, and no answer fields (they are the endpoint's answer).
    expect(log.deliveries.filter((row) => row.status === NOT_SENT_PAUSED)).toMatchObject([
      { http_status: null, latency_ms: null, response_excerpt: null },
      { http_status: null, latency_ms: null, response_excerpt: null },
    ]);
    // Paused: a new event gets no delivery. Resumed, it is on probation: its next failure pauses it again.
    sandbox.emit('integration.created', { identity: SLUG });
    expect(sandbox.state.deliveries(created.id)).toHaveLength(FAILURES_BEFORE_PAUSE + 2);
    await client.webhooks.setStatus(created.id, { status: 'active' });
    now += 1;
    sandbox.emit('integration.created', { identity: SLUG });
    sandbox.emit('integration.created', { identity: SLUG });
    await sandbox.deliveries.settled();
    expect(received).toHaveLength(FAILURES_BEFORE_PAUSE + 1);
    expect((await client.webhooks.list()).endpoints[0]).toMatchObject({
      status: 'paused',
      consecutive_failures: FAILURES_BEFORE_PAUSE,
    });
    // Resumed again, a success clears the run.
    await client.webhooks.setStatus(created.id, { status: 'active' });
    answer = () => new Response('fine');
    now += 1;
    sandbox.emit('integration.created', { identity: SLUG });
    await sandbox.deliveries.settled();
    expect(sandbox.state.deliveries(created.id)[0]).toMatchObject({ status: 'delivered', http_status: 200 });
    expect((await client.webhooks.list()).endpoints[0]?.consecutive_failures).toBe(0);
  });

  test('a success clears the failure run', async () => {
    await endpoint();
    let fail = true;
    answer = () => new Response(null, { status: fail ? 500 : 200 });
    for (let i = 0; i < FAILURES_BEFORE_PAUSE - 1; i++)
      sandbox.emit('integration.created', { identity: SLUG });
    await sandbox.deliveries.settled();
    expect(sandbox.state.webhooks()[0]!.consecutive_failures).toBe(FAILURES_BEFORE_PAUSE - 1);
    fail = false;
    sandbox.emit('integration.created', { identity: SLUG });
    await sandbox.deliveries.settled();
    expect(sandbox.state.webhooks()[0]).toMatchObject({ status: 'active', consecutive_failures: 0 });
  });

  test('no answer (the receiver throws, or is silent past the timeout): failed, and the log’s fields are null', async () => {
    const { endpoint: created } = await endpoint();
    answer = () => {
      throw new Error('boom');
    };
    sandbox.emit('integration.created', { identity: SLUG });
    await sandbox.deliveries.settled();
    answer = () => new Promise<Response>(() => undefined);
    sandbox.emit('integration.deleted', { identity: SLUG });
    await sandbox.deliveries.settled();
    const rows = sandbox.state.deliveries(created.id);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({
        status: 'failed',
        http_status: null,
        latency_ms: null,
        response_excerpt: null,
      });
    }
  });

  test('a public address with no in-process receiver is not dialled unless asked: the delivery fails unsent', async () => {
    const { endpoint: created } = await endpoint('https://elsewhere.example.org/hooks');
    sandbox.emit('integration.created', { identity: SLUG });
    await sandbox.deliveries.settled();
    expect(sandbox.deliveries.sent()).toEqual([]);
    expect(sandbox.state.deliveries(created.id)[0]).toMatchObject({ status: 'failed', http_status: null });
    expect(sandbox.state.webhooks()[0]!.consecutive_failures).toBe(1);
  });

  test('a removed endpoint’s queued rows are settled without a request', async () => {
    const { endpoint: created } = await endpoint();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    answer = async () => {
      await held;
      return new Response('ok');
    };
    sandbox.emit('integration.created', { identity: SLUG });
    now += 1;
    sandbox.emit('integration.deleted', { identity: SLUG });
    // The first attempt is on the wire; the second waits behind it, as an endpoint's rows do.
    await client.webhooks.delete(created.id);
    release();
    await sandbox.deliveries.settled();
    expect(received).toHaveLength(1);
    expect(sandbox.state.deliveries(created.id)).toMatchObject([
      { event_type: 'integration.deleted', status: NOT_SENT_REMOVED, response_excerpt: null },
      { event_type: 'integration.created', status: 'delivered' },
    ]);
  });
});

describe('loopback receivers through the platform’s fetch', () => {
  let receiver: Server;
  let url: string;
  const requests: { headers: IncomingMessage['headers']; body: string }[] = [];
  beforeAll(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        requests.push({ headers: request.headers, body });
        response.writeHead(202).end('accepted');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  test('a server the test started receives the delivery past msw, unmarked', async () => {
    const { endpoint: created, secret } = await endpoint(url);
    sandbox.emit('contact.requested', { identity: SLUG });
    await sandbox.deliveries.settled();
    expect(sandbox.deliveries.sent()[0]!.failure).toBeUndefined();
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(verify(request!.body, request!.headers, { secret, now: () => now }).type).toBe(
      'contact.requested',
    );
    // msw's bypass mark is stripped before the request leaves.
    expect(String(request!.headers.accept ?? '')).not.toContain('msw');
    expect(sandbox.state.deliveries(created.id)[0]).toMatchObject({
      status: 'delivered',
      http_status: 202,
      response_excerpt: 'accepted',
    });
    expect(sandbox.deliveries.sent()[0]!.via).toBe('fetch');
  });

  test('without allowLoopback, a loopback receiver is refused as the service refuses it', async () => {
    const strict = createSandbox({ baseUrl: 'https://strict.example.test' });
    server.use(...strict.handlers);
    const answer = await fetch('https://strict.example.test/v1/workspace/webhooks', {
      method: 'POST',
      headers: {
        cookie: '__Host-svc_session=s',
        origin: 'https://strict.example.test',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ url }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('https');
  });
});

describe('the SDK’s own fetch handler as the in-process receiver', () => {
  test('createFetchHandler verifies the delivery and its handler runs; a wrong secret is its 401', async () => {
    const { endpoint: created, secret } = await endpoint();
    const seen: string[] = [];
    const webhooks = new Webhooks({ secret, now: () => now });
    webhooks.on('contact.approved', (event) => {
      seen.push(event.data.contact);
    });
    sandbox.deliveries.receive(HOOK, createFetchHandler(webhooks));
    await client.contacts.approve(SLUG, BOB);
    await sandbox.deliveries.settled();
    expect(seen).toEqual([BOB]);
    sandbox.deliveries.receive(HOOK, createFetchHandler(new Webhooks({ secret: 'whsec_other' })));
    sandbox.emit('contact.approved', { identity: SLUG });
    await sandbox.deliveries.settled();
    expect(
      sandbox.state
        .deliveries(created.id)
        .map((row) => row.http_status)
        .sort(),
    ).toEqual([200, 401]);
  });
});

describe('control for tests', () => {
  test('with a seed and a fixed clock, ids, signatures and bodies repeat', async () => {
    const run = async () => {
      const copy = createSandbox({
        baseUrl: 'https://repeat.example.test',
        now: () => 1_700_000_000_000,
        randomSeed: 'same',
        data: { webhooks: [{ url: HOOK, created_at: 1 }] },
        delivery: { receivers: { [HOOK]: () => new Response('ok') } },
      });
      copy.emit('message.received', { identity: 'support' });
      copy.peer('support', ALICE).ask({ display_name: 'Alice' });
      await copy.deliveries.settled();
      return { sent: copy.deliveries.sent(), log: copy.state.deliveries() };
    };
    const first = await run();
    expect(first.sent).toHaveLength(2);
    expect(await run()).toEqual(first);
  });

  test('emit checks the type and data against the catalogue, as the service’s trigger does', () => {
    expect(() => sandbox.emit('nope.never' as never, { identity: SLUG })).toThrow(/unknown event type/);
    expect(() =>
      sandbox.emit('contact.approved', { identity: SLUG, data: { contact: ALICE, extra: 1 } as never }),
    ).toThrow(/does not fit/);
    const event = sandbox.emit('message.received', { identity: SLUG });
    expect(event.data.contact).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(event.id).toMatch(/^evt_[0-9a-f]{24}$/);
  });

  test('a peer asks, approves and removes: the identity’s side moves and records the inbound events', async () => {
    await endpoint();
    const carol = sandboxFingerprint('carol-peer');
    expect(sandbox.peer(SLUG, carol).ask({ display_name: 'Carol' })).toBe('pending');
    expect(
      (await client.contacts.list(SLUG, { status: 'pending_in' })).contacts.map((c) => c.fingerprint),
    ).toContain(carol);
    const { contact } = await client.contacts.request(SLUG, { card: newcomerCard });
    sandbox.peer(SLUG, contact.fingerprint).approve();
    sandbox.peer(SLUG, ALICE).remove();
    expect(() => sandbox.peer(SLUG, ALICE).approve()).toThrow(/no request waiting/);
    await sandbox.deliveries.settled();
    expect(sandbox.deliveries.sent().map((sent) => [sent.event.type, sent.event.data.contact])).toEqual([
      ['contact.requested', carol],
      ['contact.requested', contact.fingerprint],
      ['contact.approved', contact.fingerprint],
      ['contact.removed', ALICE],
    ]);
    expect(sandbox.state.contacts(SLUG).find((c) => c.fingerprint === contact.fingerprint)?.status).toBe(
      'active',
    );
  });
});
