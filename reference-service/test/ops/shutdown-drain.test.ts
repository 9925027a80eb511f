// A close lets the answers in flight finish and ends the connections that hold nothing: kept-alive ones after
// their answer (not after the 72 s keep-alive timeout), and those on which nothing or only part of a request
// arrived (never, otherwise: Node stops applying the headers timeout once closing). Real service, sockets.
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OpenedStore } from '../../src/store/open.js';
import { createTenant, startTestService, type TestService } from '../support/harness.js';
import { openMemoryStore } from '../support/pglite-snapshot.js';

/** Resolves with the milliseconds `closing` took, or Infinity after 5 s. */
function closedWithin(closing: Promise<void>): Promise<number> {
  const started = performance.now();
  return Promise.race([
    closing.then(() => performance.now() - started),
    new Promise<number>((resolve) => setTimeout(() => resolve(Number.POSITIVE_INFINITY), 5_000)),
  ]);
}

describe('closing the service', () => {
  let store: OpenedStore;
  let service: TestService;

  beforeEach(async () => {
    store = await openMemoryStore();
    service = await startTestService(store);
  });
  afterEach(async () => {
    await service?.close();
    await store?.close();
  });

  it('does not wait for a connection on which nothing was sent', async () => {
    const { port } = new URL(service.baseUrl);
    const silent = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => silent.once('connect', () => resolve()));
    const ended = new Promise<void>((resolve) => silent.once('close', () => resolve()));
    silent.on('error', () => {});
    expect(await closedWithin(service.app.close())).toBeLessThan(2_000);
    await ended;
  });

  it('does not wait for a client that sent part of a request and stopped', async () => {
    const { port } = new URL(service.baseUrl);
    const slow = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => slow.once('connect', () => resolve()));
    slow.on('error', () => {});
    slow.write('GET /v1/workspace/webhooks HTTP/1.1\r\nHost: 127');
    const ended = new Promise<void>((resolve) => slow.once('close', () => resolve()));
    expect(await closedWithin(service.app.close())).toBeLessThan(2_500);
    await ended;
  });

  it('reads and answers a request that arrives on a fresh connection as the close begins', async () => {
    const { port } = new URL(service.baseUrl);
    const late = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => late.once('connect', () => resolve()));
    let answer = '';
    late.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    const ended = new Promise<void>((resolve) => late.once('close', () => resolve()));
    const closed = closedWithin(service.app.close());
    late.write(`GET /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(await closed).toBeLessThan(2_500);
  });

  it('finishes the answer in flight, then closes without waiting for its idle connection', async () => {
    const tenant = await createTenant(service.ctx);
    // The request waits behind this transaction, so it is still being answered when the close begins.
    let release!: () => void;
    const held = store.db.transaction(() => new Promise<void>((resolve) => (release = resolve)));
    const answer = fetch(`${service.baseUrl}/v1/workspace/webhooks`, {
      headers: { authorization: `Bearer ${tenant.key}` },
    }).then(async (response) => ({ status: response.status, keepAlive: response.headers.get('connection') }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closed = closedWithin(service.app.close());
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    await held;
    expect((await answer).status).toBe(200);
    expect(await closed).toBeLessThan(2_000);
  });
});
