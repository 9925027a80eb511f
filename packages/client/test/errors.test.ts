import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  Client,
  IdempotencyMismatchError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceError,
} from '@svc-kit/client';
import { delay, HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { errorBody } from './support/fixtures.js';
import { API_KEY, BASE_URL, useServer } from './support/server.js';

const server = useServer();
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });
const WEBHOOKS = `${BASE_URL}/v1/workspace/webhooks`;

async function failure(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

describe('a refusal gives the class of its status, with code, request id, headers and body', () => {
  const table = [
    [400, 'invalid_request', BadRequestError],
    [401, 'unauthenticated', AuthenticationError],
    [403, 'forbidden', PermissionDeniedError],
    [404, 'not_found', NotFoundError],
    [422, 'idempotency_mismatch', IdempotencyMismatchError],
    [429, 'rate_limited', RateLimitError],
    [500, 'internal_error', InternalServerError],
    [503, 'unavailable', InternalServerError],
    [409, 'conflict', APIError],
  ] as const;

  it.each(table)('%i %s', async (status, code, Class) => {
    const body = errorBody(code, `refused with ${status}`, `req_${status}`);
    server.use(
      http.get(WEBHOOKS, () =>
        HttpResponse.json(body, { status, headers: { 'x-trace': 'abc', 'retry-after': '99999' } }),
      ),
    );
    const error = await failure(client.webhooks.list());
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toBeInstanceOf(Error);
    const apiError = error as APIError;
    expect(apiError.status).toBe(status);
    expect(apiError.code).toBe(code);
    expect(apiError.requestId).toBe(`req_${status}`);
    expect(apiError.message).toBe(`${status} ${code}: refused with ${status} (request req_${status})`);
    expect(apiError.headers.get('x-trace')).toBe('abc');
    expect(apiError.body).toEqual(body);
    expect(apiError.name).toBe(Class.name);
  });

  it('a step-up refusal is a PermissionDeniedError whose code says so', async () => {
    server.use(
      http.post(WEBHOOKS, () =>
        HttpResponse.json(errorBody('step_up_required', 'needs a fresh step-up', 'req_su'), { status: 403 }),
      ),
    );
    const error = await failure(client.webhooks.create({ url: 'https://hooks.example.org' }));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect((error as PermissionDeniedError).code).toBe('step_up_required');
  });

  it('RateLimitError.retryAfter comes from the body, else from the Retry-After header', async () => {
    server.use(
      http.get(WEBHOOKS, () =>
        HttpResponse.json(errorBody('rate_limited', 'slow down', 'r1', 7), {
          status: 429,
          headers: { 'retry-after': '9' },
        }),
      ),
    );
    expect(((await failure(client.webhooks.list())) as RateLimitError).retryAfter).toBe(7);

    server.use(
      http.get(WEBHOOKS, () =>
        HttpResponse.json(errorBody('rate_limited', 'slow down', 'r2'), {
          status: 429,
          headers: { 'retry-after': '11' },
        }),
      ),
    );
    expect(((await failure(client.webhooks.list())) as RateLimitError).retryAfter).toBe(11);

    server.use(
      http.get(WEBHOOKS, () =>
        HttpResponse.json(errorBody('rate_limited', 'slow down', 'r3'), { status: 429 }),
      ),
    );
    expect(((await failure(client.webhooks.list())) as RateLimitError).retryAfter).toBeUndefined();
  });

  it('takes the request id from the x-request-id header when the body has none', async () => {
    server.use(
      http.get(
        WEBHOOKS,
        () => new HttpResponse('Bad gateway', { status: 502, headers: { 'x-request-id': 'req_hdr' } }),
      ),
    );
    const error = (await failure(client.webhooks.list())) as APIError;
    expect(error.requestId).toBe('req_hdr');
  });
});

describe('malformed error bodies still give the right class and a useful message', () => {
  const cases = [
    {
      name: 'HTML from a proxy',
      status: 502,
      body: '<html><body><h1>502   Bad Gateway</h1></body></html>',
      type: 'text/html',
      message: '502 Bad Gateway: answer is not JSON: <html><body><h1>502 Bad Gateway</h1></body></html>',
      Class: InternalServerError,
    },
    {
      name: 'an empty body',
      status: 401,
      body: '',
      type: 'text/plain',
      message: '401 Unauthorized: empty answer (not the service’s error body)',
      Class: AuthenticationError,
    },
    {
      name: 'truncated JSON',
      status: 404,
      body: '{"error": {"code": "not_fo',
      type: 'application/json',
      message: '404 Not Found: answer is not JSON: {"error": {"code": "not_fo',
      Class: NotFoundError,
    },
    {
      name: 'JSON of another shape',
      status: 400,
      body: '{"message":"bad"}',
      type: 'application/json',
      message: '400 Bad Request: JSON that is not the service’s error body: {"message":"bad"}',
      Class: BadRequestError,
    },
    {
      name: 'an error object with a code of the wrong type',
      status: 429,
      body: '{"error":{"code":42,"message":"x","request_id":"r"}}',
      type: 'application/json',
      message:
        '429 Too Many Requests: JSON that is not the service’s error body: {"error":{"code":42,"message":"x","request_id":"r"}}',
      Class: RateLimitError,
    },
  ];

  it.each(cases)('$name', async ({ status, body, type, message, Class }) => {
    server.use(
      http.get(WEBHOOKS, () => new HttpResponse(body, { status, headers: { 'content-type': type } })),
    );
    const error = (await failure(client.webhooks.list())) as APIError;
    expect(error).toBeInstanceOf(Class);
    expect(error.status).toBe(status);
    expect(error.code).toBeUndefined();
    expect(error.message).toBe(message);
  });

  it('a long body is cut to an excerpt in the message but kept whole in `body`', async () => {
    const long = 'x'.repeat(5000);
    server.use(http.get(WEBHOOKS, () => new HttpResponse(long, { status: 500 })));
    const error = (await failure(client.webhooks.list())) as APIError;
    expect(error.message.length).toBeLessThan(300);
    expect(error.body).toBe(long);
  });
});

describe('failures without an answer', () => {
  it('a network error is an APIConnectionError', async () => {
    server.use(http.get(WEBHOOKS, () => HttpResponse.error()));
    const error = await failure(client.webhooks.list());
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APIError);
    expect((error as Error).message).toMatch(/^Connection error: /);
  });

  it('a slow answer is an APITimeoutError, which is a connection error', async () => {
    server.use(
      http.get(WEBHOOKS, async () => {
        await delay(2_000);
        return HttpResponse.json({});
      }),
    );
    const error = await failure(client.webhooks.list({ timeoutMs: 50 }));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as APITimeoutError).timeoutMs).toBe(50);
  });

  it('a body that stalls after the headers also times out', async () => {
    server.use(
      http.get(WEBHOOKS, () => {
        const stream = new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('{"endpoints":'));
          },
        });
        return new HttpResponse(stream, { status: 200, headers: { 'content-type': 'application/json' } });
      }),
    );
    expect(await failure(client.webhooks.list({ timeoutMs: 100 }))).toBeInstanceOf(APITimeoutError);
  });

  it('the caller’s abort is an APIUserAbortError carrying the reason', async () => {
    server.use(
      http.get(WEBHOOKS, async () => {
        await delay(2_000);
        return HttpResponse.json({});
      }),
    );
    const controller = new AbortController();
    const pending = failure(client.webhooks.list({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('user left')), 20);
    const error = await pending;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect((error as Error).cause).toEqual(new Error('user left'));
  });

  it('an already aborted signal sends nothing', async () => {
    // No handler: a request reaching the server would fail the test as unhandled.
    const error = await failure(client.webhooks.list({ signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(APIUserAbortError);
  });

  it('a fetch that ignores the signal still times out', async () => {
    const hanging = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      maxRetries: 0,
      fetch: () => new Promise<Response>(() => undefined),
    });
    expect(await failure(hanging.webhooks.list({ timeoutMs: 30 }))).toBeInstanceOf(APITimeoutError);
  });
});
