import { NotFoundError } from '@svc-kit/client';
import { FAILURES_BEFORE_PAUSE, MAX_ENDPOINTS_PER_HOST } from '@svc-kit/contract';
import { describe, expect, test } from 'vitest';
import { apiKeyClient, expectError, raw, sessionClient, useSandbox } from './support.js';

let now = 1_700_000_000_000;
const sandbox = useSandbox({ now: () => now });
const client = apiKeyClient();
const portal = sessionClient();

async function createEndpoint(url = 'https://receiver.example.org/hooks') {
  return portal.webhooks.create({ url });
}

describe('webhook endpoints are stateful', () => {
  test('a created endpoint is listed; the secret is shown once and never in the record', async () => {
    const { endpoint, secret } = await createEndpoint();
    const list = await client.webhooks.list();
    expect(list.endpoints).toEqual([endpoint]);
    expect(JSON.stringify(list)).not.toContain(secret);
    expect(endpoint.events).toEqual([]);
    expect(sandbox.state.webhookSecrets(endpoint.id)?.current).toBe(secret);
  });

  test('rotation sets rotating_until and previous_accepted_until 24 h ahead, in milliseconds', async () => {
    const { endpoint, secret: first } = await createEndpoint();
    now += 5_000;
    const rotated = await client.webhooks.rotateSecret(endpoint.id);
    const day = 24 * 60 * 60 * 1000;
    expect(rotated.previous_accepted_until).toBe(now + day);
    const [listed] = (await client.webhooks.list()).endpoints;
    expect(listed).toMatchObject({ rotating_until: now + day, updated_at: now, created_at: now - 5_000 });
    expect(sandbox.state.webhookSecrets(endpoint.id)).toEqual({ current: rotated.secret, previous: first });

    // Once the overlap has passed, the record no longer shows a rotation and the old secret is gone.
    now += day;
    expect((await client.webhooks.list()).endpoints[0]?.rotating_until).toBeNull();
    expect(sandbox.state.webhookSecrets(endpoint.id)?.previous).toBeNull();
  });

  test('pause keeps the failure count; resume keeps it short of the pause; the answer lists every endpoint', async () => {
    sandbox.seed({
      webhooks: [
        { id: 'whk_failing', url: 'https://f.example.org/h', consecutive_failures: 20, status: 'paused' },
      ],
    });
    const { endpoint: other } = await createEndpoint();
    const paused = await client.webhooks.setStatus('whk_failing', { status: 'paused' });
    expect(paused.endpoints.map((e) => [e.id, e.status, e.consecutive_failures])).toEqual([
      ['whk_failing', 'paused', 20],
      [other.id, 'active', 0],
    ]);
    const resumed = await client.webhooks.setStatus('whk_failing', { status: 'active' });
    expect(resumed.endpoints[0]).toMatchObject({
      id: 'whk_failing',
      status: 'active',
      consecutive_failures: FAILURES_BEFORE_PAUSE - 1,
    });
    // Pausing and resuming again by hand clears nothing either: only a delivery does.
    await client.webhooks.setStatus('whk_failing', { status: 'paused' });
    const again = await client.webhooks.setStatus('whk_failing', { status: 'active' });
    expect(again.endpoints[0]?.consecutive_failures).toBe(FAILURES_BEFORE_PAUSE - 1);
  });

  test(`at most ${MAX_ENDPOINTS_PER_HOST} endpoints on one host, whatever the port, path or case`, async () => {
    for (let i = 0; i < MAX_ENDPOINTS_PER_HOST; i++) await createEndpoint(`https://victim.example.org/${i}`);
    const url = 'https://VICTIM.example.org:8443/x';
    await expectError(await raw('createWebhook', { auth: 'session', body: { url } }), 403, 'forbidden');
    // Another host, even a sibling name, is another host.
    await createEndpoint('https://other.example.org/hooks');
  });

  test('delete empties the list; the delivery log of the removed endpoint stays readable', async () => {
    const { endpoint } = await createEndpoint();
    sandbox.seed({
      deliveries: [
        { endpoint_id: endpoint.id, created_at: 10 },
        { endpoint_id: endpoint.id, created_at: 30 },
        { endpoint_id: endpoint.id, created_at: 20 },
      ],
    });
    await client.webhooks.delete(endpoint.id);
    expect((await client.webhooks.list()).endpoints).toEqual([]);
    const { deliveries } = await client.webhooks.listDeliveries(endpoint.id, { limit: 2 });
    expect(deliveries.map((d) => d.created_at)).toEqual([30, 20]);
    // A removed endpoint cannot be managed any more.
    await expect(client.webhooks.rotateSecret(endpoint.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.webhooks.delete(endpoint.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('unknown endpoints answer 404 not_found', async () => {
    for (const [operationId, body] of [
      ['rotateWebhookSecret', undefined],
      ['setWebhookStatus', { status: 'paused' }],
      ['deleteWebhook', undefined],
    ] as const) {
      await expectError(await raw(operationId, { params: { id: 'whk_missing' }, body }), 404, 'not_found');
    }
    await expectError(
      await raw('listWebhookDeliveries', { params: { id: 'whk_missing' }, query: { limit: '5' } }),
      404,
      'not_found',
    );
  });

  test('events are stored as a set, in the order first given', async () => {
    const { endpoint } = await portal.webhooks.create({
      url: 'https://r.example.org/h',
      events: ['contact.requested', 'message.received', 'contact.requested'],
    });
    expect(endpoint.events).toEqual(['contact.requested', 'message.received']);
  });

  test('the webhooks_enabled flag is seedable', async () => {
    sandbox.seed({ workspace: { webhooksEnabled: false } });
    expect((await client.webhooks.list()).enabled).toBe(false);
  });

  test.each([
    ['https://localhost/h', 'fully qualified'],
    ['https://api.localhost/h', 'public hostname'],
    ['https://printer.local/h', 'public hostname'],
    ['https://[2001:db8::1]/h', 'not an IP address'],
    ['https://0x7f.1/h', 'not an IP address'],
    ['https://intranet/h', 'fully qualified'],
    ['https://user:pw@hooks.example.org/h', 'credentials'],
    ['not a url', 'absolute URL'],
  ])('createWebhook refuses the url %s', async (url, reason) => {
    const error = await expectError(
      await raw('createWebhook', { auth: 'session', body: { url } }),
      400,
      'invalid_request',
    );
    expect(error.message).toContain(reason);
  });
});
