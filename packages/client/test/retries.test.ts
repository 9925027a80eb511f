import {
  APIConnectionError,
  APIUserAbortError,
  Client,
  ClientValidationError,
  InternalServerError,
  RateLimitError,
} from '@svc-kit/client';
import { delay, HttpResponse, http, type JsonBodyType } from 'msw';
import { describe, expect, it } from 'vitest';
import { endpoint, errorBody } from './support/fixtures.js';
import { API_KEY, BASE_URL, record, type Seen, useServer } from './support/server.js';

const server = useServer();
const WEBHOOKS = `${BASE_URL}/v1/workspace/webhooks`;
const APPROVE = `${BASE_URL}/v1/identities/bot/contacts/fp/approve`;
const LIST = { endpoints: [endpoint], events: [], enabled: true };
const APPROVED = { status: 'approved', fingerprint: 'fp', preset: 'basic', notified: true };

// A tiny backoff keeps the suite fast; the waits a 429 asks for are real.
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, initialRetryDelayMs: 1 });

/** Answers the attempts in turn with the given handlers' results; records every attempt. */
function sequence(
  method: 'get' | 'post' | 'patch' | 'delete',
  url: string,
  answers: (() => Response | Promise<Response>)[],
) {
  const seen: Seen[] = [];
  server.use(
    http[method](url, async ({ request }) => {
      seen.push(await record(request));
      const answer = answers[Math.min(seen.length, answers.length) - 1];
      if (!answer) throw new Error('no answer');
      return answer();
    }),
  );
  return seen;
}

const status = (code: number) => () =>
  HttpResponse.json(errorBody(code === 429 ? 'rate_limited' : 'internal_error', 'x', `req_${code}`), {
    status: code,
  });
const ok =
  (body: JsonBodyType, code = 200) =>
  () =>
    HttpResponse.json(body, { status: code });

async function failure(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('429', () => {
  it('waits the Retry-After header’s seconds, then succeeds', async () => {
    const seen = sequence('get', WEBHOOKS, [
      () =>
        HttpResponse.json(errorBody('rate_limited', 'slow', 'r'), {
          status: 429,
          headers: { 'retry-after': '1' },
        }),
      ok(LIST),
    ]);
    const started = Date.now();
    expect(await client.webhooks.list()).toEqual(LIST);
    expect(seen).toHaveLength(2);
    // The wait asked for is honoured (a lower bound on behaviour, not a speed measurement).
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('waits the body’s retry_after when there is no header', async () => {
    const seen = sequence('get', WEBHOOKS, [
      () => HttpResponse.json(errorBody('rate_limited', 'slow', 'r', 1), { status: 429 }),
      ok(LIST),
    ]);
    const started = Date.now();
    await client.webhooks.list();
    expect(seen).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('throws at once when the wait asked for is above maxRetryDelayMs', async () => {
    const capped = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetryDelayMs: 5_000 });
    const seen = sequence('get', WEBHOOKS, [
      () => HttpResponse.json(errorBody('rate_limited', 'slow', 'r', 3600), { status: 429 }),
    ]);
    const started = Date.now();
    const error = await failure(capped.webhooks.list());
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(3600);
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('is retried even for an operation that is not repeatable (nothing was done)', async () => {
    const seen = sequence('post', WEBHOOKS, [
      () => HttpResponse.json(errorBody('rate_limited', 'slow', 'r', 0), { status: 429 }),
      ok({ endpoint, secret: 's' }, 201),
    ]);
    await client.webhooks.create({ url: 'https://hooks.example.org' });
    expect(seen).toHaveLength(2);
  });

  it('without a wait given, backs off and gives up after maxRetries with the last error', async () => {
    const seen = sequence('get', WEBHOOKS, [status(429)]);
    expect(await failure(client.webhooks.list())).toBeInstanceOf(RateLimitError);
    expect(seen).toHaveLength(3);
  });
});

describe('5xx and connection errors: retried only when the operation is safe to repeat', () => {
  it('a GET is retried after 503', async () => {
    const seen = sequence('get', WEBHOOKS, [status(503), ok(LIST)]);
    expect(await client.webhooks.list()).toEqual(LIST);
    expect(seen).toHaveLength(2);
  });

  it('a DELETE and a PATCH are retried after 502', async () => {
    const deleted = sequence('delete', `${WEBHOOKS}/wh_1`, [
      status(502),
      () => new HttpResponse(null, { status: 204 }),
    ]);
    expect(await client.webhooks.delete('wh_1')).toBeUndefined();
    expect(deleted).toHaveLength(2);
    const patched = sequence('patch', `${WEBHOOKS}/wh_1`, [status(502), ok({ endpoints: [] })]);
    await client.webhooks.setStatus('wh_1', { status: 'active' });
    expect(patched).toHaveLength(2);
  });

  it('createWebhook is not retried after 500, nor after a connection error', async () => {
    const seen = sequence('post', WEBHOOKS, [status(500)]);
    expect(await failure(client.webhooks.create({ url: 'https://hooks.example.org' }))).toBeInstanceOf(
      InternalServerError,
    );
    expect(seen).toHaveLength(1);

    const lost = sequence('post', WEBHOOKS, [() => HttpResponse.error()]);
    expect(await failure(client.webhooks.create({ url: 'https://hooks.example.org' }))).toBeInstanceOf(
      APIConnectionError,
    );
    expect(lost).toHaveLength(1);
  });

  it('callContactTool (POST, not idempotent) is not retried after a timeout', async () => {
    const seen = sequence('post', `${BASE_URL}/v1/identities/bot/contacts/fp/call`, [
      async () => {
        await delay(1_000);
        return HttpResponse.json({ ok: true, result: 1 });
      },
    ]);
    await failure(client.contacts.callTool('bot', 'fp', { tool: 't' }, { timeoutMs: 30 }));
    expect(seen).toHaveLength(1);
  });

  it('a GET that timed out is tried again', async () => {
    const seen = sequence('get', WEBHOOKS, [
      async () => {
        await delay(1_000);
        return HttpResponse.json(LIST);
      },
      ok(LIST),
    ]);
    expect(await client.webhooks.list({ timeoutMs: 100 })).toEqual(LIST);
    expect(seen).toHaveLength(2);
  });

  it('a 4xx other than 429 is final', async () => {
    const seen = sequence('get', WEBHOOKS, [
      () => HttpResponse.json(errorBody('not_found', 'x', 'r'), { status: 404 }),
    ]);
    await failure(client.webhooks.list());
    expect(seen).toHaveLength(1);
  });
});

describe('Idempotency-Key', () => {
  it('is generated once per call and sent unchanged on every retry after connection errors', async () => {
    const seen = sequence('post', APPROVE, [
      () => HttpResponse.error(),
      () => HttpResponse.error(),
      ok(APPROVED),
    ]);
    expect(await client.contacts.approve('bot', 'fp')).toEqual(APPROVED);
    expect(seen).toHaveLength(3);
    const keys = seen.map((s) => s.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
  });

  it('differs between two calls', async () => {
    const seen = sequence('post', APPROVE, [ok(APPROVED)]);
    await client.contacts.approve('bot', 'fp');
    await client.contacts.approve('bot', 'fp');
    expect(seen[0]?.headers.get('idempotency-key')).not.toBe(seen[1]?.headers.get('idempotency-key'));
  });

  it('the caller’s own key is used on every attempt', async () => {
    const seen = sequence('post', APPROVE, [status(500), ok(APPROVED)]);
    await client.contacts.approve('bot', 'fp', { preset: 'muted' }, { idempotencyKey: 'order-42-approve' });
    expect(seen.map((s) => s.headers.get('idempotency-key'))).toEqual([
      'order-42-approve',
      'order-42-approve',
    ]);
  });

  it('a header of that name in `headers` cannot replace it', async () => {
    const seen = sequence('post', APPROVE, [ok(APPROVED)]);
    await client.contacts.approve(
      'bot',
      'fp',
      {},
      { idempotencyKey: 'mine', headers: { 'Idempotency-Key': 'other' } },
    );
    expect(seen[0]?.headers.get('idempotency-key')).toBe('mine');
  });

  it('is refused on an operation that is not idempotent, before anything is sent', async () => {
    const error = await failure(
      client.webhooks.create({ url: 'https://h.example' }, { idempotencyKey: 'k' }),
    );
    expect(error).toBeInstanceOf(ClientValidationError);
    expect((error as Error).message).toContain('createWebhook is not idempotent');
  });

  it('a key with a line break is refused', async () => {
    expect(await failure(client.contacts.block('bot', 'fp', { idempotencyKey: 'a\nb' }))).toBeInstanceOf(
      ClientValidationError,
    );
  });
});

describe('bounds', () => {
  it('gives up after maxRetries (default 2: three attempts) with the last error', async () => {
    const seen = sequence('get', WEBHOOKS, [status(500), status(502), status(503), ok(LIST)]);
    const error = await failure(client.webhooks.list());
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).status).toBe(503);
    expect(seen).toHaveLength(3);
  });

  it('maxRetries can be set per client and per call', async () => {
    const none = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, initialRetryDelayMs: 1 });
    const seen = sequence('get', WEBHOOKS, [status(500)]);
    await failure(none.webhooks.list());
    expect(seen).toHaveLength(1);
    await failure(none.webhooks.list({ maxRetries: 4 }));
    expect(seen).toHaveLength(6);
  });

  it('an abort during the wait between attempts ends the call at once, without another attempt', async () => {
    const seen = sequence('get', WEBHOOKS, [
      () => HttpResponse.json(errorBody('rate_limited', 'slow', 'r', 30), { status: 429 }),
    ]);
    const controller = new AbortController();
    const pending = failure(client.webhooks.list({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    expect(await pending).toBeInstanceOf(APIUserAbortError);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(seen).toHaveLength(1);
  });
});
