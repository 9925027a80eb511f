// A close lets the answers in flight finish and ends the connections that hold nothing: kept-alive ones once
// their answer is sent (not after the 72 s keep-alive timeout) and those on which nothing was sent yet (not
// after the headers timeout). Either held a rolling restart about a minute. Real service, real sockets.
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
