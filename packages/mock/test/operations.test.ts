import { type OperationId, operationList, RESERVED_EVENT_TYPES } from '@svc-kit/contract';
import { describe, expect, test } from 'vitest';
import { createSandboxCard, type Sandbox } from '../src/index.js';
import {
  ALICE,
  apiKeyClient,
  BOB,
  CAROL,
  DAVE,
  ERIN,
  expectError,
  FIXTURE,
  newcomerCard,
  type RawCall,
  raw,
  SLUG,
  sessionClient,
  useSandbox,
} from './support.js';

const NOW = 1_750_000_000_000;
const sandbox = useSandbox({ data: FIXTURE, randomSeed: 'operations', now: () => NOW });
const client = apiKeyClient();
const contact = (fingerprint: string) => ({ slug: SLUG, fingerprint });
const integration = { slug: SLUG, name: 'notes' };

const happyPaths: Record<OperationId, () => Promise<void>> = {
  listWebhooks: async () => {
    const list = await client.webhooks.list();
    expect(list.endpoints.map((endpoint) => endpoint.id)).toEqual(['whk_seeded']);
    expect(list.enabled).toBe(true);
    expect(list.events).toContain('message.received');
  },

  createWebhook: async () => {
    const created = await sessionClient().webhooks.create({
      url: 'https://receiver.example.org/hooks',
      events: ['message.received'],
    });
    expect(created.endpoint).toMatchObject({
      url: 'https://receiver.example.org/hooks',
      events: ['message.received'],
      status: 'active',
      consecutive_failures: 0,
      rotating_until: null,
      created_at: NOW,
      updated_at: NOW,
    });
    expect(created.endpoint.id).toMatch(/^whk_[0-9a-f]{24}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  },

  rotateWebhookSecret: async () => {
    const before = sandbox.state.webhookSecrets('whk_seeded')!.current;
    const rotated = await client.webhooks.rotateSecret('whk_seeded');
    expect(rotated.previous_accepted_until).toBe(NOW + 24 * 60 * 60 * 1000);
    expect(rotated.secret).not.toBe(before);
    expect(sandbox.state.webhookSecrets('whk_seeded')).toEqual({ current: rotated.secret, previous: before });
  },

  setWebhookStatus: async () => {
    const { endpoints } = await client.webhooks.setStatus('whk_seeded', { status: 'paused' });
    expect(endpoints).toEqual([
      expect.objectContaining({ id: 'whk_seeded', status: 'paused', updated_at: NOW }),
    ]);
  },

  deleteWebhook: async () => {
    const { data, response } = await client.webhooks.delete('whk_seeded').withResponse();
    expect(response.status).toBe(204);
    expect(data).toBeUndefined();
    expect(sandbox.state.webhooks()).toEqual([]);
  },

  listWebhookDeliveries: async () => {
    const { deliveries } = await client.webhooks.listDeliveries('whk_seeded', { limit: 10 });
    expect(deliveries.map((delivery) => delivery.id)).toEqual(['dlv_2', 'dlv_1']);
  },

  listContacts: async () => {
    const { contacts } = await client.contacts.list(SLUG, { status: 'pending_in' });
    expect(contacts.map((c) => c.display_name)).toEqual(['Bob', 'Carol']);
  },

  requestContact: async () => {
    const answer = await client.contacts.request(SLUG, { card: newcomerCard, note: 'hello' });
    expect(answer.status).toBe('pending');
    expect(answer.contact).toMatchObject({
      display_name: 'Frank',
      endpoint: 'https://frank.example.org/agent',
    });
    expect(answer.contact.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  },

  updateContact: async () => {
    const { contact: updated } = await client.contacts.update(SLUG, ALICE, {
      preset: 'close',
      permissions: ['files.read'],
    });
    expect(updated).toMatchObject({ fingerprint: ALICE, preset: 'close', permissions: ['files.read'] });
  },

  removeContact: async () => {
    expect(await client.contacts.remove(SLUG, ALICE)).toEqual({
      status: 'removed',
      fingerprint: ALICE,
      notified: true,
    });
  },

  approveContact: async () => {
    expect(await client.contacts.approve(SLUG, BOB)).toEqual({
      status: 'approved',
      fingerprint: BOB,
      preset: 'basic',
      notified: true,
    });
  },

  rejectContact: async () => {
    expect(await client.contacts.reject(SLUG, BOB)).toEqual({
      status: 'rejected',
      fingerprint: BOB,
      notified: true,
    });
  },

  notifyAcceptance: async () => {
    expect(await client.contacts.notifyAcceptance(SLUG, ALICE)).toEqual({
      fingerprint: ALICE,
      notified: true,
      refusal: null,
    });
  },

  listContactTools: async () => {
    expect(await client.contacts.listTools(SLUG, ALICE)).toEqual({
      tools: [{ name: 'add', description: 'adds two numbers', input_schema: { type: 'object' } }],
    });
  },

  callContactTool: async () => {
    expect(await client.contacts.callTool(SLUG, ALICE, { tool: 'add', arguments: { a: 2, b: 3 } })).toEqual({
      ok: true,
      result: 5,
    });
  },

  blockContact: async () => {
    expect(await client.contacts.block(SLUG, ALICE)).toEqual({ status: 'blocked', fingerprint: ALICE });
  },

  unblockContact: async () => {
    expect(await client.contacts.unblock(SLUG, DAVE)).toEqual({ status: 'forgotten', fingerprint: DAVE });
  },

  setPetname: async () => {
    expect(await client.contacts.setPetname(SLUG, ALICE, { petname: 'Al' })).toBeNull();
    expect(sandbox.state.contacts(SLUG).find((c) => c.fingerprint === ALICE)?.petname).toBe('Al');
  },

  refreshContact: async () => {
    expect(await client.contacts.refresh(SLUG, ALICE)).toEqual({ outcome: 'unchanged' });
  },

  setTrust: async () => {
    expect(await client.contacts.setTrust(SLUG, ALICE, { trust: 'may_instruct' })).toBeNull();
    expect(sandbox.state.contacts(SLUG).find((c) => c.fingerprint === ALICE)?.trust_flag).toBe(
      'may_instruct',
    );
  },

  listIntegrations: async () => {
    const { integrations } = await client.integrations.list(SLUG);
    expect(integrations).toEqual([expect.objectContaining({ slug: 'notes', status: 'healthy' })]);
  },

  createIntegration: async () => {
    const created = await client.integrations.create(SLUG, { catalogue: 'weather' });
    expect(created).toMatchObject({ tools: 2, trouble: null, authorization_url: null });
    expect(created.integration).toMatchObject({
      slug: 'weather',
      endpoint: 'https://weather.example.org/mcp',
    });
    expect(created.integration.id).toMatch(/^int_[0-9a-f]{24}$/);
  },

  authorizeIntegration: async () => {
    const { authorization_url } = await client.integrations.authorize(SLUG, 'notes', { scope: 'read write' });
    const url = new URL(authorization_url);
    expect(url.origin + url.pathname).toBe('https://oauth.sandbox.invalid/authorize');
    expect(url.searchParams.get('scope')).toBe('read write');
  },

  getExposure: async () => {
    expect(await client.integrations.getExposure(SLUG, 'notes')).toEqual({
      catalog: [
        { name: 'search', description: '', input_schema: { type: 'object' } },
        { name: 'fetch', description: '', input_schema: { type: 'object' } },
      ],
      entries: [],
      version: 0,
      stale: [],
    });
  },

  setExposure: async () => {
    expect(
      await client.integrations.setExposure(SLUG, 'notes', {
        entries: [{ tool: 'search', mode: 'passthrough' }],
      }),
    ).toEqual({ version: 1 });
  },

  deleteIntegration: async () => {
    expect(await client.integrations.delete(SLUG, 'notes')).toBeNull();
    expect(sandbox.state.integrations(SLUG)).toEqual([]);
  },
};

test.each(Object.entries(happyPaths))('%s answers through the typed client', async (_name, run) => {
  await run();
});

/** Everything an API call could have changed, to show a refused call changed nothing. */
function snapshot(box: Sandbox) {
  return JSON.stringify({
    webhooks: box.state.webhooks(),
    secrets: box.state.webhookSecrets('whk_seeded'),
    deliveries: box.state.deliveries(),
    contacts: box.state.contacts(SLUG),
    integrations: box.state.integrations(SLUG),
    exposure: box.state.exposure(SLUG, 'notes'),
  });
}

const long = (length: number) => 'x'.repeat(length);
const card = createSandboxCard({ display_name: 'Gina', endpoint: 'https://gina.example.org/agent' });
const session = { auth: 'session' } as const;

/** At least one refused input per operation; bodies get unknown fields and over-long strings where limited. */
const invalidInputs: Record<OperationId, [string, RawCall][]> = {
  listWebhooks: [['an unknown query parameter', { query: { page: '2' } }]],
  createWebhook: [
    ['an empty url', { ...session, body: { url: '' } }],
    ['an unknown field', { ...session, body: { url: 'https://a.example.org/h', secret: 'mine' } }],
    ['an http url', { ...session, body: { url: 'http://hooks.example.org/h' } }],
    ['an IP address', { ...session, body: { url: 'https://203.0.113.9/h' } }],
    ['an unknown event', { ...session, body: { url: 'https://a.example.org/h', events: ['nope'] } }],
    ...RESERVED_EVENT_TYPES.slice(0, 1).map((name): [string, RawCall] => [
      'a reserved event',
      { ...session, body: { url: 'https://a.example.org/h', events: [name] } },
    ]),
    ['a body that is not an object', { ...session, body: ['https://a.example.org/h'] }],
  ],
  rotateWebhookSecret: [['a body', { params: { id: 'whk_seeded' }, body: { secret: 'mine' } }]],
  setWebhookStatus: [
    ['an unsettable status', { params: { id: 'whk_seeded' }, body: { status: 'disabled' } }],
    ['an unknown field', { params: { id: 'whk_seeded' }, body: { status: 'paused', reason: 'x' } }],
    ['no body', { params: { id: 'whk_seeded' } }],
  ],
  deleteWebhook: [['an unknown query parameter', { params: { id: 'whk_seeded' }, query: { force: 'true' } }]],
  listWebhookDeliveries: [
    ['no limit', { params: { id: 'whk_seeded' } }],
    ['limit 0', { params: { id: 'whk_seeded' }, query: { limit: '0' } }],
    ['limit 101', { params: { id: 'whk_seeded' }, query: { limit: '101' } }],
    ['limit 1e1', { params: { id: 'whk_seeded' }, query: { limit: '1e1' } }],
    ['a repeated limit', { params: { id: 'whk_seeded' }, query: 'limit=1&limit=2' }],
    ['an unknown query parameter', { params: { id: 'whk_seeded' }, query: { limit: '5', cursor: 'a' } }],
  ],
  listContacts: [
    ['an unknown status', { params: { slug: SLUG }, query: { status: 'gone' } }],
    ['an unknown query parameter', { params: { slug: SLUG }, query: { page: '1' } }],
  ],
  requestContact: [
    ['an empty card', { params: { slug: SLUG }, body: { card: '' } }],
    ['a card over 16384 characters', { params: { slug: SLUG }, body: { card: long(16385) } }],
    ['a note over 1024 characters', { params: { slug: SLUG }, body: { card, note: long(1025) } }],
    ['an unknown field', { params: { slug: SLUG }, body: { card, preset: 'close' } }],
    ['a card not made by createSandboxCard', { params: { slug: SLUG }, body: { card: 'svc-card-v1.abc' } }],
  ],
  updateContact: [
    ['an unsettable preset', { params: contact(ALICE), body: { preset: 'boss' } }],
    [
      '65 permissions',
      { params: contact(ALICE), body: { permissions: Array.from({ length: 65 }, (_, i) => `p${i}`) } },
    ],
    ['a permission over 96 characters', { params: contact(ALICE), body: { permissions: [long(97)] } }],
    ['an unknown field', { params: contact(ALICE), body: { petname: 'Al' } }],
  ],
  removeContact: [['a body', { params: contact(ALICE), body: { notify: false } }]],
  approveContact: [
    ['an unsettable preset', { params: contact(BOB), body: { preset: 'boss' } }],
    ['an unknown field', { params: contact(BOB), body: { preset: 'basic', note: 'hi' } }],
  ],
  rejectContact: [['a body', { params: contact(BOB), body: { reason: 'spam' } }]],
  notifyAcceptance: [['a body', { params: contact(ALICE), body: { again: true } }]],
  listContactTools: [['an unknown query parameter', { params: contact(ALICE), query: { refresh: '1' } }]],
  callContactTool: [
    ['an empty tool name', { params: contact(ALICE), body: { tool: '' } }],
    [
      'arguments that are not an object',
      { params: contact(ALICE), body: { tool: 'add', arguments: [1, 2] } },
    ],
    ['an unknown field', { params: contact(ALICE), body: { tool: 'add', timeout: 5 } }],
  ],
  blockContact: [['a body', { params: contact(ALICE), body: { silent: true } }]],
  unblockContact: [['a body', { params: contact(DAVE), body: { restore: true } }]],
  setPetname: [
    ['a petname over 64 characters', { params: contact(ALICE), body: { petname: long(65) } }],
    ['a petname that is not a string', { params: contact(ALICE), body: { petname: 5 } }],
    ['an unknown field', { params: contact(ALICE), body: { petname: 'Al', emoji: '*' } }],
  ],
  refreshContact: [
    ['a field (the body must be empty)', { params: contact(ALICE), body: { force: true } }],
    ['no body', { params: contact(ALICE) }],
  ],
  setTrust: [
    ['an unsettable trust', { params: contact(ALICE), body: { trust: 'always' } }],
    ['an unknown field', { params: contact(ALICE), body: { trust: 'may_instruct', until: 1 } }],
  ],
  listIntegrations: [
    ['an unknown query parameter', { params: { slug: SLUG }, query: { status: 'healthy' } }],
  ],
  createIntegration: [
    ['a catalogue name over 64 characters', { params: { slug: SLUG }, body: { catalogue: long(65) } }],
    ['a one-character slug', { params: { slug: SLUG }, body: { catalogue: 'weather', slug: 'w' } }],
    ['a slug over 32 characters', { params: { slug: SLUG }, body: { catalogue: 'weather', slug: long(33) } }],
    ['an endpoint that is not a URI', { params: { slug: SLUG }, body: { endpoint: 'not a uri' } }],
    [
      'an unknown transport',
      { params: { slug: SLUG }, body: { endpoint: 'https://x.example.org', transport: 'ws' } },
    ],
    [
      'an empty auth header',
      { params: { slug: SLUG }, body: { catalogue: 'weather', auth: { header: '', value: 'v' } } },
    ],
    [
      'an auth value over 4096 characters',
      {
        params: { slug: SLUG },
        body: { catalogue: 'weather', auth: { header: 'Authorization', value: long(4097) } },
      },
    ],
    ['an unknown field', { params: { slug: SLUG }, body: { catalogue: 'weather', name: 'w' } }],
    ['neither catalogue nor endpoint', { params: { slug: SLUG }, body: {} }],
    ['an unknown catalogue entry', { params: { slug: SLUG }, body: { catalogue: 'stocks' } }],
    ['a slug already in use', { params: { slug: SLUG }, body: { catalogue: 'weather', slug: 'notes' } }],
  ],
  authorizeIntegration: [
    ['a scope over 512 characters', { params: integration, body: { scope: long(513) } }],
    ['an unknown field', { params: integration, body: { redirect_uri: 'https://x.example.org' } }],
  ],
  getExposure: [['an unknown query parameter', { params: integration, query: { version: '1' } }]],
  setExposure: [
    ['an unknown mode', { params: integration, body: { entries: [{ tool: 'search', mode: 'copy' }] } }],
    ['an entry without tool', { params: integration, body: { entries: [{ mode: 'mapped' }] } }],
    ['no entries', { params: integration, body: {} }],
    ['an unknown field', { params: integration, body: { entries: [], version: 3 } }],
    [
      'the same tool twice',
      {
        params: integration,
        body: {
          entries: [
            { tool: 'search', mode: 'passthrough' },
            { tool: 'search', mode: 'agent' },
          ],
        },
      },
    ],
  ],
  deleteIntegration: [['a body', { params: integration, body: { keep_credential: true } }]],
};

describe('400 invalid_request with the spec error body, and nothing stored', () => {
  test('every operation of the contract is covered', () => {
    expect(Object.keys(invalidInputs).sort()).toEqual(operationList.map((op) => op.operationId).sort());
  });

  const cases = Object.entries(invalidInputs).flatMap(([operationId, list]) =>
    list.map(([why, call]) => ({ operationId: operationId as OperationId, why, call })),
  );
  test.each(cases)('$operationId refuses $why', async ({ operationId, call }) => {
    const before = snapshot(sandbox);
    const error = await expectError(await raw(operationId, call), 400, 'invalid_request');
    expect(error.message.length).toBeGreaterThan(0);
    expect(snapshot(sandbox)).toBe(before);
  });

  test('the message names the field and the problem', async () => {
    const error = await expectError(
      await raw('setPetname', { params: contact(ALICE), body: { petname: long(65), emoji: '*' } }),
      400,
      'invalid_request',
    );
    expect(error.message).toMatch(/^invalid body: /);
    expect(error.message).toContain('petname');
    expect(error.message).toContain('emoji');
  });

  test('a body that is not JSON, or not sent as JSON', async () => {
    const params = contact(ALICE);
    const notJson = await raw('setPetname', { params, body: '{"petname":' });
    expect((await expectError(notJson, 400, 'invalid_request')).message).toBe('the body is not valid JSON');
    const asText = await raw('setPetname', {
      params,
      body: '{"petname":"Al"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect((await expectError(asText, 400, 'invalid_request')).message).toMatch(
      /Content-Type: application\/json/,
    );
  });

  test('no-body operations accept an empty body, null and {}', async () => {
    for (const body of ['', 'null', '{}']) {
      expect((await raw('rotateWebhookSecret', { params: { id: 'whk_seeded' }, body })).status).toBe(200);
      expect((await raw('blockContact', { params: contact(ALICE), body })).status).toBe(200);
    }
  });
});

test('seeded contacts are listed in the order they were seeded', () => {
  const names = sandbox.state.contacts(SLUG).map((c) => c.fingerprint);
  expect(names).toEqual([ALICE, BOB, CAROL, DAVE, ERIN]);
});
