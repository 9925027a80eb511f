import {
  APIConnectionError,
  AuthenticationError,
  IdempotencyMismatchError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from '@svc-kit/client';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ALICE, apiKeyClient, expectError, FIXTURE, raw, SLUG, useSandbox } from './support.js';

const sandbox = useSandbox({ data: FIXTURE, randomSeed: 'latency' });
const client = apiKeyClient();

describe('injected failures', () => {
  test.each([
    ['unauthenticated', 401, AuthenticationError],
    ['forbidden', 403, PermissionDeniedError],
    ['not_found', 404, NotFoundError],
    ['idempotency_mismatch', 422, IdempotencyMismatchError],
    ['internal_error', 500, InternalServerError],
    ['service_unavailable', 503, InternalServerError],
  ] as const)('%s answers %i with the error body', async (failure, status, errorClass) => {
    sandbox.inject('listContacts', failure);
    const error = await expectError(await raw('listContacts', { params: { slug: SLUG } }), status, failure);
    expect(error.message).toBe(`injected by the sandbox: ${failure}`);
    const thrown = await client.contacts.list(SLUG).catch((caught: unknown) => caught);
    expect(thrown).toBeInstanceOf(errorClass);
    expect(thrown).toMatchObject({ status, code: failure });
  });

  test('429 carries Retry-After and retry_after, equal', async () => {
    sandbox.inject('callContactTool', 'rate_limited', { retryAfter: 7 });
    const response = await raw('callContactTool', {
      params: { slug: SLUG, fingerprint: ALICE },
      body: { tool: 'add' },
    });
    const error = await expectError(response, 429, 'rate_limited');
    expect(error.retry_after).toBe(7);
    expect(response.headers.get('retry-after')).toBe('7');
    const thrown = await client.contacts
      .callTool(SLUG, ALICE, { tool: 'add' })
      .catch((caught: unknown) => caught);
    expect(thrown).toBeInstanceOf(RateLimitError);
    expect((thrown as RateLimitError).retryAfter).toBe(7);
  });

  test('429 without a retryAfter option asks for 1 second', async () => {
    sandbox.inject('listContacts', 'rate_limited');
    const response = await raw('listContacts', { params: { slug: SLUG } });
    expect((await expectError(response, 429, 'rate_limited')).retry_after).toBe(1);
    expect(response.headers.get('retry-after')).toBe('1');
  });

  test('a network error rejects fetch; the client reports a connection error', async () => {
    sandbox.inject('listWebhooks', 'network_error', { times: 2 });
    await expect(raw('listWebhooks')).rejects.toThrow(TypeError);
    await expect(client.webhooks.list()).rejects.toBeInstanceOf(APIConnectionError);
    expect((await raw('listWebhooks')).status).toBe(200);
  });

  test('a custom status and code', async () => {
    sandbox.inject('listWebhooks', { status: 409, code: 'conflict', message: 'try later' });
    const error = await expectError(await raw('listWebhooks'), 409, 'conflict');
    expect(error.message).toBe('try later');
  });

  test('times: the next N calls fail, then the operation works again', async () => {
    sandbox.inject('setPetname', 'internal_error', { times: 2 });
    const call = () =>
      raw('setPetname', { params: { slug: SLUG, fingerprint: ALICE }, body: { petname: 'x' } });
    expect((await call()).status).toBe(500);
    expect((await call()).status).toBe(500);
    expect((await call()).status).toBe(200);
    expect(sandbox.state.contacts(SLUG)[0]?.petname).toBe('x');
  });

  test('without times the failure stays until cleared; other operations are untouched', async () => {
    sandbox.inject('listWebhooks', 'service_unavailable');
    for (let i = 0; i < 3; i++) expect((await raw('listWebhooks')).status).toBe(503);
    expect((await raw('listContacts', { params: { slug: SLUG } })).status).toBe(200);
    sandbox.clearInjections();
    expect((await raw('listWebhooks')).status).toBe(200);
  });

  test("'*' applies to every operation; injections are used in the order given", async () => {
    sandbox.inject('listWebhooks', 'not_found', { times: 1 });
    sandbox.inject('*', 'internal_error', { times: 2 });
    expect((await raw('listWebhooks')).status).toBe(404);
    expect((await raw('listWebhooks')).status).toBe(500);
    expect((await raw('listIntegrations', { params: { slug: SLUG } })).status).toBe(500);
    expect((await raw('listWebhooks')).status).toBe(200);
  });

  test('an injected failure comes before credentials and changes nothing', async () => {
    sandbox.inject('deleteWebhook', 'internal_error', { times: 1 });
    const response = await raw('deleteWebhook', { params: { id: 'whk_seeded' }, auth: 'none' });
    expect(response.status).toBe(500);
    expect(sandbox.state.webhooks()).toHaveLength(1);
  });

  test('reset clears injections', async () => {
    sandbox.inject('listWebhooks', 'internal_error');
    sandbox.reset();
    expect((await raw('listWebhooks')).status).toBe(200);
  });

  test.each([
    ['an unknown operation', () => sandbox.inject('listEverything' as 'listWebhooks', 'internal_error')],
    ['an unknown failure', () => sandbox.inject('listWebhooks', 'teapot' as 'internal_error')],
    ['times 0', () => sandbox.inject('listWebhooks', 'internal_error', { times: 0 })],
    ['a fractional times', () => sandbox.inject('listWebhooks', 'internal_error', { times: 1.5 })],
    ['a status below 400', () => sandbox.inject('listWebhooks', { status: 302, code: 'moved' })],
    ['a negative retryAfter', () => sandbox.inject('listWebhooks', 'rate_limited', { retryAfter: -1 })],
  ])('inject refuses %s with a TypeError', (_why, inject) => {
    expect(inject).toThrow(TypeError);
  });
});

describe('latency', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Resolves to whether the promise settled, without waiting for it. */
  async function settled(promise: Promise<unknown>): Promise<boolean> {
    let done = false;
    void promise.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    await vi.advanceTimersByTimeAsync(0);
    return done;
  }

  test('a fixed latency holds every answer back that long', async () => {
    sandbox.setLatency(250);
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const pending = raw('listWebhooks');
    await vi.advanceTimersByTimeAsync(249);
    expect(await settled(pending)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(pending)).toBe(true);
    expect((await pending).status).toBe(200);
  });

  test('a range draws each delay from min to max', async () => {
    sandbox.setLatency({ min: 100, max: 200 });
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    for (let call = 0; call < 5; call++) {
      const pending = raw('listWebhooks');
      await vi.advanceTimersByTimeAsync(99);
      expect(await settled(pending)).toBe(false);
      await vi.advanceTimersByTimeAsync(101);
      expect(await settled(pending)).toBe(true);
    }
  });

  test('setLatency(undefined) removes it, and reset restores the option', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    sandbox.setLatency(10_000);
    sandbox.setLatency(undefined);
    expect(await settled(raw('listWebhooks'))).toBe(true);
    sandbox.setLatency(10_000);
    sandbox.reset();
    expect(await settled(raw('listWebhooks'))).toBe(true);
  });

  test.each([[-1], [1.5], [{ min: 5, max: 1 }]])('a bad latency %j is a TypeError', (latency) => {
    expect(() => sandbox.setLatency(latency)).toThrow(TypeError);
  });
});
