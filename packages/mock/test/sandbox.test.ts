import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createSandbox, type SandboxOptions, sandboxFingerprint } from '../src/index.js';
import { apiKeyClient, BASE_URL, expectError, FIXTURE, KEY_HEADERS, SLUG, sessionClient } from './support.js';

const NOW = 1_700_000_000_000;
const sandbox = createSandbox({ baseUrl: BASE_URL, data: FIXTURE, randomSeed: 42, now: () => NOW });
const a = createSandbox({ baseUrl: 'https://a.example.test', randomSeed: 'snap', now: () => NOW });
const b = createSandbox({ baseUrl: 'https://b.example.test', randomSeed: 'snap', now: () => NOW });
const prefixed = createSandbox({ baseUrl: 'https://gw.example.test/api/', data: FIXTURE });
const brokenClock = createSandbox({ baseUrl: 'https://clock.example.test', now: () => 1.5 });
const unseeded = [
  createSandbox({ baseUrl: 'https://r1.example.test' }),
  createSandbox({ baseUrl: 'https://r2.example.test' }),
];

// One msw server per test file: msw patches the global fetch once, so servers must not be nested.
const server = setupServer(
  ...[sandbox, a, b, prefixed, brokenClock, ...unseeded].flatMap((box) => box.handlers),
);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => sandbox.reset());
afterAll(() => server.close());
const client = apiKeyClient();

describe('reset and seed', () => {
  test('reset brings back the data given at creation and forgets everything since', async () => {
    await sessionClient().webhooks.create({ url: 'https://r.example.org/h' });
    await client.integrations.delete(SLUG, 'notes');
    sandbox.seed({
      identities: { other: { contacts: [{ fingerprint: sandboxFingerprint('z'), display_name: 'Z' }] } },
    });
    sandbox.reset();
    expect(sandbox.state.webhooks().map((e) => e.id)).toEqual(['whk_seeded']);
    expect(sandbox.state.integrations(SLUG).map((i) => i.slug)).toEqual(['notes']);
    expect(sandbox.state.contacts('other')).toEqual([]);
  });

  test('seed adds to the current state', async () => {
    sandbox.seed({ webhooks: [{ url: 'https://second.example.org/h' }] });
    const { endpoints } = await client.webhooks.list();
    expect(endpoints.map((e) => e.url)).toEqual([
      'https://hooks.example.org/svc',
      'https://second.example.org/h',
    ]);
    expect(endpoints[1]).toMatchObject({ status: 'active', created_at: NOW, rotating_until: null });
  });

  test.each([
    [
      'a contact status outside the contract',
      {
        identities: {
          x: { contacts: [{ fingerprint: sandboxFingerprint('q'), display_name: 'Q', status: 'friend' }] },
        },
      },
      'identities.x.contacts[0]: status',
    ],
    [
      'a fingerprint of the wrong shape',
      { identities: { x: { contacts: [{ fingerprint: 'alice', display_name: 'A' }] } } },
      'fingerprint must be sha256:',
    ],
    ['a malformed key', { apiKeys: [{ key: 'svc_1_2' }] }, 'apiKeys[0]: key must be'],
    [
      'an unknown permission',
      { apiKeys: [{ key: `svc_${'a'.repeat(16)}_${'b'.repeat(64)}`, permissions: ['admin'] }] },
      'unknown permission "admin"',
    ],
    [
      'a duplicate endpoint id',
      { webhooks: [{ id: 'whk_seeded', url: 'https://x.example.org' }] },
      'already exists',
    ],
    [
      'a delivery status outside the contract',
      { deliveries: [{ endpoint_id: 'whk_seeded', status: 'lost' }] },
      'deliveries[0]: status',
    ],
    [
      'an exposure entry without mode',
      {
        identities: {
          x: {
            integrations: [
              { slug: 'ab', endpoint: 'https://a.example.org', exposure: { entries: [{ tool: 't' }] } },
            ],
          },
        },
      },
      'exposure.entries[0]: mode',
    ],
    [
      'a tool listed twice',
      {
        catalogue: [
          { slug: 'dup', endpoint: 'https://d.example.org', tools: [{ name: 't' }, { name: 't' }] },
        ],
      },
      'tool "t" is listed twice',
    ],
  ])('seeding %s throws a TypeError naming it, and changes nothing', (_why, data, message) => {
    const before = JSON.stringify([
      sandbox.state.webhooks(),
      sandbox.state.deliveries(),
      sandbox.state.contacts(SLUG),
    ]);
    // A good item first: it must not stay behind when a later one is refused.
    const withGoodFirst = {
      ...data,
      webhooks: [
        { url: 'https://good.example.org/h' },
        ...((data as { webhooks?: object[] }).webhooks ?? []),
      ],
    };
    expect(() => sandbox.seed(withGoodFirst as never)).toThrow(TypeError);
    expect(() => sandbox.seed(data as never)).toThrow(message);
    expect(
      JSON.stringify([sandbox.state.webhooks(), sandbox.state.deliveries(), sandbox.state.contacts(SLUG)]),
    ).toBe(before);
  });
});

describe('read-only state views', () => {
  test('views are frozen copies', async () => {
    const [endpoint] = sandbox.state.webhooks();
    expect(() => {
      (endpoint as { url: string }).url = 'https://changed.example.org';
    }).toThrow(TypeError);
    const contacts = sandbox.state.contacts(SLUG);
    await client.contacts.setPetname(SLUG, contacts[0]!.fingerprint, { petname: 'later' });
    expect(contacts[0]?.petname).toBe('');
    expect(sandbox.state.contacts(SLUG)[0]?.petname).toBe('later');
  });

  test('deliveries of all endpoints, newest first', () => {
    expect(sandbox.state.deliveries().map((d) => d.id)).toEqual(['dlv_2', 'dlv_1']);
    expect(sandbox.state.workspace()).toEqual({
      webhooksEnabled: true,
      suspended: false,
      deletionHold: false,
    });
  });
});

describe('determinism', () => {
  async function createIn(base: string, extraReads: number) {
    const headers = {
      cookie: '__Host-svc_session=s',
      'content-type': 'application/json',
      origin: new URL(base).origin,
    };
    for (let i = 0; i < extraReads; i++) await fetch(`${base}/v1/workspace/webhooks`, { headers });
    const response = await fetch(`${base}/v1/workspace/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: 'https://r.example.org/h' }),
    });
    return response.json();
  }

  test('the same seed and clock give the same ids and secrets, whatever reads came between', async () => {
    const first = await createIn('https://a.example.test', 0);
    const second = await createIn('https://b.example.test', 3);
    expect(second).toEqual(first);
    a.reset();
    expect(await createIn('https://a.example.test', 1)).toEqual(first);
  });

  test('request ids repeat too', async () => {
    a.reset();
    b.reset();
    const ids = async (base: string) =>
      (await fetch(`${base}/v1/workspace/webhooks`, { headers: KEY_HEADERS })).headers.get('x-request-id');
    expect(await ids('https://a.example.test')).toBe(await ids('https://b.example.test'));
  });
});

describe('routing', () => {
  test('an unknown /v1 route or method is 404 not_found', async () => {
    const error = await expectError(
      await fetch(`${BASE_URL}/v1/workspace/keys`, { headers: KEY_HEADERS }),
      404,
      'not_found',
    );
    expect(error.message).toBe('no such route: GET /v1/workspace/keys');
    await expectError(
      await fetch(`${BASE_URL}/v1/workspace/webhooks`, { method: 'PUT', headers: KEY_HEADERS }),
      404,
      'not_found',
    );
  });

  test('a malformed percent-escape in the path is 400, not a crash', async () => {
    await expectError(
      await fetch(`${BASE_URL}/v1/identities/${SLUG}/contacts/%E0%A4%A/petname`, {
        method: 'PATCH',
        headers: KEY_HEADERS,
      }),
      400,
      'invalid_request',
    );
  });

  test('path parameters are percent-decoded segments', async () => {
    sandbox.seed({
      identities: { 'team/a b': { integrations: [{ slug: 'x?y', endpoint: 'https://x.example.org' }] } },
    });
    const { integrations } = await client.integrations.list('team/a b');
    expect(integrations.map((i) => i.slug)).toEqual(['x?y']);
    expect(await client.integrations.getExposure('team/a b', 'x?y')).toMatchObject({ version: 0 });
  });

  test('the OpenAPI document is served at /v1/openapi.json', async () => {
    const response = await fetch(`${BASE_URL}/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ openapi: '3.1.0' });
  });

  test('a base URL with a path prefix', async () => {
    expect(prefixed.baseUrl).toBe('https://gw.example.test/api');
    const response = await fetch('https://gw.example.test/api/v1/workspace/webhooks', {
      headers: KEY_HEADERS,
    });
    expect((await response.json()).endpoints).toHaveLength(1);
  });
});

describe('options', () => {
  test.each([
    ['a relative baseUrl', { baseUrl: '/api' }],
    ['a baseUrl with a query', { baseUrl: 'https://x.example.test/?a=1' }],
    ['a non-http baseUrl', { baseUrl: 'ftp://x.example.test' }],
    ['a negative latency', { baseUrl: BASE_URL, latency: -5 }],
    [
      'bad data',
      { baseUrl: BASE_URL, data: { webhooks: [{ url: 'https://x.example.org', status: 'gone' }] } },
    ],
  ])('createSandbox refuses %s with a TypeError', (_why, options) => {
    expect(() => createSandbox(options as SandboxOptions)).toThrow(TypeError);
  });

  test('a clock that does not give integer milliseconds is a 500 naming the option', async () => {
    const response = await fetch(`${brokenClock.baseUrl}/v1/workspace/webhooks`, { headers: KEY_HEADERS });
    expect((await expectError(response, 500, 'internal_error')).message).toContain('now() option');
  });

  test('without randomSeed, two sandboxes mint different ids', async () => {
    const body = JSON.stringify({ url: 'https://r.example.org/h' });
    const ids: string[] = [];
    for (const box of unseeded) {
      const headers = {
        'content-type': 'application/json',
        cookie: '__Host-svc_session=s',
        origin: new URL(box.baseUrl).origin,
      };
      const answer = await fetch(`${box.baseUrl}/v1/workspace/webhooks`, { method: 'POST', headers, body });
      ids.push((await answer.json()).endpoint.id);
    }
    expect(ids[0]).not.toBe(ids[1]);
  });
});
