import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { errorBodySchema, operations } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_INTEGRATION_SETTINGS } from '../../src/features/integrations/settings.js';
import type { Db, Queryable } from '../../src/store/db.js';
import type { OpenedStore } from '../../src/store/open.js';
import { BACKENDS } from '../support/backends.js';
import { dumpDatabase } from '../support/db-dump.js';
import { takeEvents } from '../support/endpoints.js';
import { call, createTenant, startTestService, type Tenant, type TestService } from '../support/harness.js';
import { addIdentity } from '../support/identity.js';
import { useStore } from '../support/service-lifecycle.js';

/** A planted credential: it must never come back in an answer, a log line or a plaintext row. */
const PLANTED = `sk_live_${randomBytes(12).toString('hex')}`;

/**
 * Upstreams that misbehave on loopback, each echoing every request header it got (the planted credential
 * among them) in its answer: a 500, a 401, an HTML page, and an SSE stream that never names its endpoint.
 */
async function startHostileUpstream(): Promise<{
  url: string;
  openSockets(): number;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    const echoed = JSON.stringify(request.headers);
    const path = request.url ?? '/';
    if (path.startsWith('/silent-sse')) {
      // Opens the stream and never sends the `endpoint` event.
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': hello\n\n');
      return;
    }
    if (path.startsWith('/fails')) {
      response.writeHead(500, { 'content-type': 'text/plain' }).end(`boom: ${echoed}`);
      return;
    }
    if (path.startsWith('/refuses')) {
      response.writeHead(401, { 'content-type': 'text/plain' }).end(`no: ${echoed}`);
      return;
    }
    // Anything else, OAuth discovery included: an HTML page quoting the request.
    response.writeHead(200, { 'content-type': 'text/html' }).end(`<html>${echoed}</html>`);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    openSockets: () => sockets.size,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The real store, except that recording an event fails while `failing()` says so: the write that comes
 * after createIntegration's first one, to show that a failure there leaves nothing behind.
 */
function withFailingEventInserts(store: OpenedStore, failing: () => boolean): OpenedStore {
  const guard = (queryable: Queryable): Queryable => ({
    query: (sql, params) => {
      // The events are written by one statement (a WITH ... INSERT INTO events ...), wherever it starts.
      if (failing() && sql.includes('INSERT INTO events')) {
        return Promise.reject(new Error('injected failure: the events table is unavailable'));
      }
      return queryable.query(sql, params);
    },
    exec: (sql) => queryable.exec(sql),
  });
  const db: Db = {
    ...guard(store.db),
    kind: store.db.kind,
    transaction: (fn) => store.db.transaction((tx) => fn(guard(tx))),
    withAdvisoryLock: (key, fn) => store.db.withAdvisoryLock(key, fn),
    listen: (channel, onNotify) => store.db.listen(channel, onNotify),
    close: () => store.db.close(),
    pressure: () => store.db.pressure(),
    withWaitLimit: () => db,
    withoutWaitLimit: () => db,
  };
  return { db, close: () => store.close() };
}

describe.each(BACKENDS)('credentials and upstream failures on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let tenant: Tenant;
  let upstream: Awaited<ReturnType<typeof startHostileUpstream>>;
  const slug = 'creds';
  const answers: string[] = [];
  let failEventInserts = false;
  const integrations = `/v1/identities/${slug}/integrations`;

  const post = async (path: string, body: unknown) => {
    const result = await call(service, 'POST', path, { auth: { key: tenant.key }, body });
    answers.push(result.text);
    return result;
  };

  beforeAll(async () => {
    upstream = await startHostileUpstream();
    service = await startTestService(
      withFailingEventInserts(store, () => failEventInserts),
      {
        extra: {
          integrations: {
            ...DEFAULT_INTEGRATION_SETTINGS,
            allowLocalhost: true,
            timeoutMs: 1_000,
            catalogue: {},
          },
        },
      },
    );
    tenant = await createTenant(service.ctx);
    await addIdentity(store.db, tenant.workspaceId, slug);
  });
  afterAll(async () => {
    await service?.close();
    await upstream?.close();
  });

  it('refuses header names that are not tokens and values with controls, leaving nothing behind', async () => {
    const before = await dumpDatabase(store.db);
    const refused: { header: string; value: string }[] = [
      { header: 'Authorization', value: `Bearer ${PLANTED}\rABC` },
      { header: 'Authorization', value: `Bearer ${PLANTED}\r\nX-Injected: 1` },
      { header: 'Authorization', value: 'v\u0000' },
      { header: 'Authorization', value: `\u0001${PLANTED}` },
      { header: 'X Key', value: PLANTED },
      { header: 'X-Key:', value: PLANTED },
      { header: 'X-Key\r\nInjected', value: PLANTED },
      { header: 'Content-Length', value: '0' },
      { header: 'Host', value: 'internal.example' },
      { header: 'Transfer-Encoding', value: 'chunked' },
    ];
    for (const auth of refused) {
      const result = await post(integrations, { endpoint: `${upstream.url}/fails`, slug: 'x1', auth });
      expect({ auth: auth.header, status: result.status }).toEqual({ auth: auth.header, status: 400 });
      expect(errorBodySchema.parse(result.body).error.code).toBe('invalid_request');
    }
    expect(await dumpDatabase(store.db)).toBe(before);
  });

  it('an upstream failure leaves the service’s own words in `trouble`, never the credential', async () => {
    for (const [path, expected] of [
      ['/fails', /HTTP 500|did not answer as an MCP server/],
      ['/refuses', /unauthorized \(HTTP 401\)/],
      ['/html', /did not answer as an MCP server|HTTP/],
    ] as const) {
      const name = `t${path.slice(1, 6)}`;
      const result = await post(integrations, {
        endpoint: `${upstream.url}${path}`,
        slug: name,
        auth: { header: 'Authorization', value: `Bearer ${PLANTED}` },
      });
      expect(result.status).toBe(201);
      const created = operations.createIntegration.success.schema.parse(result.body);
      expect(created.trouble).toMatch(expected);
    }
  });

  it('authorizeIntegration against a server that does not speak OAuth: 502 upstream_failed', async () => {
    const created = await post(integrations, { endpoint: `${upstream.url}/html-oauth`, slug: 'no-oauth' });
    expect(created.status).toBe(201);
    const result = await post(`${integrations}/no-oauth/authorize`, { scope: PLANTED });
    expect(result.status).toBe(502);
    const error = errorBodySchema.parse(result.body).error;
    expect(error.code).toBe('upstream_failed');
    expect(error.message).not.toMatch(/SyntaxError|Response|html|<|\{/i);
  });

  it('an SSE upstream that never names its endpoint: answered within the deadline, sockets closed', async () => {
    const before = upstream.openSockets();
    const result = await post(integrations, {
      endpoint: `${upstream.url}/silent-sse`,
      transport: 'sse',
      slug: 'silent',
      auth: { header: 'X-Key', value: PLANTED },
    });
    expect(result.status).toBe(201);
    const created = operations.createIntegration.success.schema.parse(result.body);
    expect(created.trouble).toMatch(/did not (finish|answer)/);
    expect(created.integration.status).toBe('unreachable');
    // The stream the SDK held open is aborted with the exchange: no socket of ours stays connected.
    for (let tries = 0; tries < 100 && upstream.openSockets() > before; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(upstream.openSockets()).toBeLessThanOrEqual(before);
  });

  it('a failure after the first write leaves neither the integration nor its event', async () => {
    const taken = await takeEvents(store.db, service.ctx.secretBox, tenant.workspaceId);
    failEventInserts = true;
    try {
      // The workspace's budget of upstream exchanges stays spent: the upstream was dialled before the failure.
      const before = await dumpDatabase(store.db, ['outbound_budgets']);
      const result = await post(integrations, { endpoint: `${upstream.url}/fails`, slug: 'half' });
      expect(result.status).toBe(500);
      expect(errorBodySchema.parse(result.body).error.code).toBe('internal_error');
      expect(await dumpDatabase(store.db, ['outbound_budgets'])).toBe(before);
    } finally {
      failEventInserts = false;
    }
    const again = await post(integrations, { endpoint: `${upstream.url}/fails`, slug: 'half' });
    expect(again.status).toBe(201);
    const events = (await taken()).filter((row) => row.body.includes('"half"'));
    expect(events.map((row) => row.type)).toEqual(['integration.created']);
  });

  it('the planted credential is in no answer, no log line and no plaintext row', async () => {
    expect(answers.length).toBeGreaterThan(10);
    for (const text of answers) expect(text).not.toContain(PLANTED);
    expect(service.logs()).not.toContain(PLANTED);
    expect(await dumpDatabase(store.db)).not.toContain(PLANTED);
  });
});
