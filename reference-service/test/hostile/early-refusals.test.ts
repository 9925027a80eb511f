import { connect } from 'node:net';
import { ERROR_CODES, errorBodySchema } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { call, createTenant, startTestService, type Tenant, type TestService } from '../support/harness.js';
import { addIdentity } from '../support/identity.js';
import { rawRequest } from '../support/raw-http.js';
import { useStore } from '../support/service-lifecycle.js';

/** The answer is the spec's error body, with a request id, a code of the registry and its status. */
function expectErrorBody(answer: { status: number; body: string }, status: number, code?: string) {
  expect(answer.status).toBe(status);
  const parsed = errorBodySchema.parse(JSON.parse(answer.body));
  expect(parsed.error.request_id).toMatch(/^req_[0-9a-f]{24}$/);
  expect(Object.hasOwn(ERROR_CODES, parsed.error.code)).toBe(true);
  expect(ERROR_CODES[parsed.error.code as keyof typeof ERROR_CODES].status).toBe(status);
  if (code !== undefined) expect(parsed.error.code).toBe(code);
  return parsed.error;
}

describe.each(BACKENDS)('refusals before any handler, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let tenant: Tenant;
  let host: string;
  const slug = 'hostile';

  beforeAll(async () => {
    service = await startTestService(store);
    tenant = await createTenant(service.ctx);
    await addIdentity(store.db, tenant.workspaceId, slug);
    host = new URL(service.baseUrl).host;
  });
  afterAll(async () => {
    await service?.close();
  });

  it.each([
    ['a garbage request line', 'GARBAGE\r\n\r\n', 400],
    [
      'a header without a colon',
      'GET /v1/workspace/webhooks HTTP/1.1\r\nHost: h\r\nno colon here\r\n\r\n',
      400,
    ],
    [
      'conflicting Content-Length',
      'POST /v1/sessions HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      400,
    ],
    [
      'Content-Length with Transfer-Encoding',
      'POST /v1/sessions HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
    ],
    [
      'a chunk size that is not hexadecimal',
      'POST /v1/sessions HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n',
      400,
    ],
    [
      'a chunk size that breaks off after a valid chunk',
      'POST /v1/sessions HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\nZZ\r\n}\r\n0\r\n\r\n',
      400,
    ],
    ['headers over the limit', `GET / HTTP/1.1\r\nHost: h\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ['no Host on HTTP/1.1', 'GET /v1/openapi.json HTTP/1.1\r\n\r\n', 400],
    ['a raw NUL in the request line', 'GET /v1/\u0000 HTTP/1.1\r\nHost: h\r\n\r\n', 400],
  ])('%s: the error body, with a request id', async (_what, bytes, status) => {
    const answer = await rawRequest(service.baseUrl, bytes);
    const error = expectErrorBody(answer, status);
    expect(answer.headers['x-request-id']).toBe(error.request_id);
  });

  // The request before the garbage was read in full and is being answered (its handler awaits the
  // database) when the parser fails: its caller gets its answer, then the refusal, then the close.
  it('a request followed on its connection by bytes that are not HTTP is answered before the refusal', async () => {
    const { port, hostname } = new URL(service.baseUrl);
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      `GET /v1/workspace/webhooks HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${tenant.key}\r\n\r\n` +
        'GARBAGE\r\n\r\n',
    );
    await closed;
    const answers = Buffer.concat(chunks).toString('utf8');
    expect(answers).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const refusal = answers.indexOf('HTTP/1.1 400 Bad Request\r\n');
    expect(refusal).toBeGreaterThan(0);
    expect(answers.slice(refusal)).toContain('"code":"invalid_request"');
  });

  it('an undecodable path (%ff) and an over-long path parameter: 401 without credentials, 400 with', async () => {
    for (const path of ['/v1/workspace/webhooks/%ff', `/v1/workspace/webhooks/${'x'.repeat(150)}`]) {
      const anonymous = await call(service, 'DELETE', path);
      expectErrorBody({ status: anonymous.status, body: anonymous.text }, 401, 'unauthenticated');
      const keyed = await call(service, 'DELETE', path, { auth: { key: tenant.key } });
      expectErrorBody({ status: keyed.status, body: keyed.text }, 400, 'invalid_request');
    }
  });

  it('a NUL in a path id, a query, a body value or a key name is a 400, after authentication', async () => {
    const cases: { method: string; path: string; body?: unknown }[] = [
      { method: 'DELETE', path: '/v1/workspace/webhooks/%00' },
      { method: 'GET', path: '/v1/workspace/webhooks/wh_1/deliveries?limit=%00' },
      { method: 'POST', path: `/v1/identities/${slug}/integrations`, body: { slug: 'a\u0000b' } },
      { method: 'POST', path: `/v1/identities/${slug}/integrations`, body: { '\u0000': 1 } },
      { method: 'POST', path: '/v1/workspace/keys', body: { name: 'k\u0000', scopes: [] } },
    ];
    for (const { method, path, body } of cases) {
      const anonymous = await call(service, method, path, body === undefined ? {} : { body });
      expectErrorBody({ status: anonymous.status, body: anonymous.text }, 401, 'unauthenticated');
      const keyed = await call(service, method, path, {
        auth: { cookie: tenant.steppedUpSession },
        headers: { origin: service.baseUrl },
        ...(body === undefined ? {} : { body }),
      });
      expect({ path, status: keyed.status }).toEqual({ path, status: 400 });
      expectErrorBody({ status: keyed.status, body: keyed.text }, 400, 'invalid_request');
    }
    // Public routes: refused as input at once.
    const login = await call(service, 'POST', '/v1/sessions', {
      body: { email: `${tenant.email}\u0000`, password: 'x' },
    });
    expectErrorBody({ status: login.status, body: login.text }, 400, 'invalid_request');
    const callback = await call(service, 'GET', '/oauth/integrations/callback?state=%00&code=c');
    expectErrorBody({ status: callback.status, body: callback.text }, 400, 'invalid_request');
  });

  it('JSON nested 5,000 deep is a 400, and a 401 first without credentials', async () => {
    const deep = `{"entries":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;
    const path = `/v1/identities/${slug}/integrations/none/exposure`;
    const anonymous = await call(service, 'POST', path, { rawBody: deep });
    expectErrorBody({ status: anonymous.status, body: anonymous.text }, 401);
    const keyed = await call(service, 'POST', path, { rawBody: deep, auth: { key: tenant.key } });
    const error = expectErrorBody({ status: keyed.status, body: keyed.text }, 400);
    expect(error.message).toContain('nests deeper');
  });

  it('authentication comes first: malformed JSON, an oversized body or a wrong media type', async () => {
    const path = '/v1/workspace/webhooks';
    const bodies: { rawBody: string; headers?: Record<string, string> }[] = [
      { rawBody: '{"url":' },
      { rawBody: JSON.stringify({ url: 'x'.repeat(1_100_000) }) },
      { rawBody: 'url=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    ];
    for (const body of bodies) {
      const anonymous = await call(service, 'POST', path, body);
      expectErrorBody({ status: anonymous.status, body: anonymous.text }, 401, 'unauthenticated');
      // A key cannot create webhooks (step-up): the policy's 403 comes before the body's 400.
      const keyed = await call(service, 'POST', path, { ...body, auth: { key: tenant.key } });
      expectErrorBody({ status: keyed.status, body: keyed.text }, 403, 'step_up_required');
      const session = await call(service, 'POST', path, {
        ...body,
        headers: { ...body.headers, origin: service.baseUrl },
        auth: { cookie: tenant.steppedUpSession },
      });
      expectErrorBody({ status: session.status, body: session.text }, 400, 'invalid_request');
    }
  });

  it('the Host check does not get in the way of an ordinary request', async () => {
    const answer = await rawRequest(
      service.baseUrl,
      `GET /v1/openapi.json HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    );
    expect(answer.status).toBe(200);
  });
});
