import { Client, ClientValidationError, ResponseValidationError } from '@svc-kit/client';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { endpoint } from './support/fixtures.js';
import { API_KEY, BASE_URL, useServer } from './support/server.js';

// No handler is installed unless a test needs one: any request that escapes validation fails the test.
const server = useServer();
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL });
const strict = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, validateResponses: true });
const WEBHOOKS = `${BASE_URL}/v1/workspace/webhooks`;

async function refusal(promise: PromiseLike<unknown>): Promise<ClientValidationError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ClientValidationError);
    return error as ClientValidationError;
  }
  throw new Error('expected a ClientValidationError');
}

describe('arguments are checked against the contract before anything is sent', () => {
  it('a body field out of its limits', async () => {
    const error = await refusal(client.contacts.setPetname('bot', 'fp', { petname: 'x'.repeat(65) }));
    expect(error.operationId).toBe('setPetname');
    expect(error.target).toBe('body');
    expect(error.issues).toEqual([expect.objectContaining({ code: 'too_big', path: ['petname'] })]);
    expect(error.message).toMatch(/^setPetname: invalid body: petname: /);
  });

  it('an unknown body field, and a wrong type (from untyped callers)', async () => {
    const unknownField = await refusal(
      client.contacts.request('bot', { card: 'c', nickname: 'x' } as unknown as { card: string }),
    );
    expect(unknownField.issues[0]?.code).toBe('unrecognized_keys');
    const wrongType = await refusal(client.webhooks.setStatus('wh', { status: 'stopped' as 'paused' }));
    expect(wrongType.issues[0]?.path).toEqual(['status']);
  });

  it('a reserved event name in a filter', async () => {
    const error = await refusal(
      client.webhooks.create({ url: 'https://h.example', events: ['message.sent' as 'message.received'] }),
    );
    expect(error.target).toBe('body');
    expect(error.issues[0]?.path).toEqual(['events', 0]);
  });

  it('a query value that is not a plain integer', async () => {
    for (const limit of ['1e2', ' 5', '0x10', '', 0, 101, 2.5]) {
      const error = await refusal(client.webhooks.listDeliveries('wh', { limit }));
      expect(error.target).toBe('query');
    }
  });

  it('an empty path segment, and one that is not well-formed Unicode', async () => {
    const empty = await refusal(client.contacts.block('', 'fp'));
    expect(empty.target).toBe('params');
    expect(empty.issues[0]?.path).toEqual(['slug']);
    const surrogate = await refusal(client.contacts.block('bot', '\uD800'));
    expect(surrogate.target).toBe('params');
  });

  it('an unknown operation name or a part the operation does not take (from untyped callers)', async () => {
    const call = client.request as unknown as (id: string, input?: unknown) => Promise<unknown>;
    expect((await refusal(call.call(client, 'dropDatabase'))).issues[0]?.path).toEqual(['operationId']);
    expect((await refusal(call.call(client, 'listWebhooks', { body: {} }))).target).toBe('body');
    expect((await refusal(call.call(client, 'listWebhooks', 'nope'))).target).toBe('options');
  });

  it('bad per-call options', async () => {
    expect((await refusal(client.webhooks.list({ timeoutMs: 0 }))).issues[0]?.path).toEqual(['timeoutMs']);
    expect((await refusal(client.webhooks.list({ maxRetries: -1 }))).issues[0]?.path).toEqual(['maxRetries']);
    expect((await refusal(client.webhooks.list({ signal: {} as AbortSignal }))).issues[0]?.path).toEqual([
      'signal',
    ]);
    expect((await refusal(client.webhooks.list({ headers: { 'bad header': 'x' } }))).issues[0]?.path).toEqual(
      ['headers'],
    );
  });

  it('defaults of the contract are applied to what is sent', async () => {
    let sent: unknown;
    server.use(
      http.post(`${BASE_URL}/v1/identities/bot/contacts/fp/approve`, async ({ request }) => {
        sent = await request.json();
        return HttpResponse.json({ status: 'approved', fingerprint: 'fp', preset: 'basic', notified: true });
      }),
    );
    await client.contacts.approve('bot', 'fp', {});
    expect(sent).toEqual({ preset: 'basic' });
  });
});

describe('constructor options', () => {
  // The key would otherwise come from the environment of whoever runs the tests.
  beforeEach(() => {
    vi.stubEnv('SVC_API_KEY', undefined);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const cases: [string, unknown, string][] = [
    ['no API key', { apiKey: undefined, baseUrl: BASE_URL }, 'apiKey'],
    ['an empty API key', { apiKey: '', baseUrl: BASE_URL }, 'apiKey'],
    ['an API key with a newline', { apiKey: `${API_KEY}\n`, baseUrl: BASE_URL }, 'apiKey'],
    ['both a key and a session', { apiKey: API_KEY, session: true, baseUrl: BASE_URL }, 'apiKey'],
    ['no base URL', { apiKey: API_KEY }, 'baseUrl'],
    ['a relative base URL', { apiKey: API_KEY, baseUrl: '/api' }, 'baseUrl'],
    ['a base URL with a query', { apiKey: API_KEY, baseUrl: `${BASE_URL}?x=1` }, 'baseUrl'],
    ['an ftp base URL', { apiKey: API_KEY, baseUrl: 'ftp://files.example' }, 'baseUrl'],
    ['a fetch that is not a function', { apiKey: API_KEY, baseUrl: BASE_URL, fetch: 'fetch' }, 'fetch'],
    ['a negative timeout', { apiKey: API_KEY, baseUrl: BASE_URL, timeoutMs: -1 }, 'timeoutMs'],
    ['a fractional retry count', { apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1.5 }, 'maxRetries'],
    [
      'an infinite ceiling',
      { apiKey: API_KEY, baseUrl: BASE_URL, maxRetryDelayMs: Infinity },
      'maxRetryDelayMs',
    ],
  ];

  it.each(cases)('%s is refused with ClientValidationError', (_name, options, field) => {
    let thrown: unknown;
    try {
      new Client(options as ConstructorParameters<typeof Client>[0]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ClientValidationError);
    expect((thrown as ClientValidationError).target).toBe('options');
    expect((thrown as ClientValidationError).issues[0]?.path).toEqual([field]);
    expect((thrown as Error).message).not.toContain(API_KEY);
  });
});

describe('answers', () => {
  it('a 204 resolves to undefined, a JSON null to null, an empty 200 of a null operation to null', async () => {
    server.use(
      http.delete(`${WEBHOOKS}/wh`, () => new HttpResponse(null, { status: 204 })),
      http.patch(`${BASE_URL}/v1/identities/bot/contacts/fp/trust`, () => HttpResponse.json(null)),
      http.patch(
        `${BASE_URL}/v1/identities/bot/contacts/fp/petname`,
        () => new HttpResponse(null, { status: 200 }),
      ),
    );
    expect(await strict.webhooks.delete('wh')).toBeUndefined();
    expect(await strict.contacts.setTrust('bot', 'fp', { trust: 'messages_only' })).toBeNull();
    expect(await strict.contacts.setPetname('bot', 'fp', { petname: '' })).toBeNull();
  });

  it('a success answer that is not JSON is a ResponseValidationError, validation on or off', async () => {
    server.use(
      http.get(WEBHOOKS, () => new HttpResponse('<html>ok</html>', { headers: { 'x-request-id': 'req_h' } })),
    );
    for (const c of [client, strict]) {
      const error = await c.webhooks.list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ResponseValidationError);
      expect((error as ResponseValidationError).requestId).toBe('req_h');
      expect((error as ResponseValidationError).body).toBe('<html>ok</html>');
    }
  });

  it('an empty answer where a body is due is a ResponseValidationError', async () => {
    server.use(http.get(WEBHOOKS, () => new HttpResponse(null, { status: 200 })));
    expect(await client.webhooks.list().catch((e: unknown) => e)).toBeInstanceOf(ResponseValidationError);
  });

  it('with validateResponses, an answer that does not match the contract is refused with its issues', async () => {
    const drifted = { endpoints: [{ ...endpoint, status: 'deleted' }], events: [], enabled: true };
    server.use(http.get(WEBHOOKS, () => HttpResponse.json(drifted)));
    const error = await strict.webhooks.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]?.path).toEqual(['endpoints', 0, 'status']);
    expect((error as ResponseValidationError).status).toBe(200);
    // Without it, the answer is passed through as received.
    expect(await client.webhooks.list()).toEqual(drifted);
  });
});
