import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../snippets/quickstart/express';
import { createServer } from '../../snippets/quickstart/fastify';
import { type Delivery, messageReceived, signedDelivery } from '../support/deliveries';

const SECRET = 'whsec_docs_quickstart_secret';
const WRONG_SECRET = 'whsec_some_other_endpoint';

let log: ReturnType<typeof vi.spyOn>;

beforeEach(() => {
  log = vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  return () => vi.restoreAllMocks();
});

/** The line every quickstart handler logs: proof that the event was verified, typed and routed. */
function handledThread(threadId: string) {
  return `message in thread ${threadId} for support-bot`;
}

async function post(url: string, delivery: Delivery): Promise<Response> {
  return fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
}

describe('Express quickstart', () => {
  let url: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const server = createApp(SECRET).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close());

  it('verifies a signed delivery and runs the handler', async () => {
    const response = await post(url, await signedDelivery(SECRET, messageReceived('thr_express')));
    expect(response.status).toBe(200);
    expect(log).toHaveBeenCalledWith(handledThread('thr_express'));
  });

  it('refuses a delivery signed with another secret, without running the handler', async () => {
    const response = await post(url, await signedDelivery(WRONG_SECRET));
    expect(response.status).toBe(401);
    expect(log).not.toHaveBeenCalled();
  });
});

describe('Fastify quickstart', () => {
  let url: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const app = await createServer(SECRET);
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    url = `${address}/webhooks`;
    close = () => app.close();
  });
  afterAll(() => close());

  it('verifies a signed delivery and runs the handler', async () => {
    const response = await post(url, await signedDelivery(SECRET, messageReceived('thr_fastify')));
    expect(response.status).toBe(200);
    expect(log).toHaveBeenCalledWith(handledThread('thr_fastify'));
  });

  it('refuses a tampered body', async () => {
    const delivery = await signedDelivery(SECRET, messageReceived('thr_original'));
    const response = await post(url, {
      ...delivery,
      body: delivery.body.replace('thr_original', 'thr_tampered'),
    });
    expect(response.status).toBe(401);
    expect(log).not.toHaveBeenCalled();
  });
});

describe('Web Request/Response quickstarts', () => {
  // Both modules read the secret from the environment when they load, as they would in production.
  let nextRoute: typeof import('../../snippets/quickstart/next-route');
  let hono: typeof import('../../snippets/quickstart/hono');

  beforeAll(async () => {
    vi.stubEnv('SVC_WEBHOOK_SECRET', SECRET);
    nextRoute = await import('../../snippets/quickstart/next-route');
    hono = await import('../../snippets/quickstart/hono');
    vi.unstubAllEnvs();
  });

  it('Next.js App Router: POST verifies a signed delivery', async () => {
    const delivery = await signedDelivery(SECRET, messageReceived('thr_next'));
    const response = await nextRoute.POST(
      new Request('https://app.example/api/webhooks', {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.body,
      }),
    );
    expect(response.status).toBe(200);
    expect(log).toHaveBeenCalledWith(handledThread('thr_next'));
  });

  it('Next.js App Router: POST refuses an unsigned request', async () => {
    const response = await nextRoute.POST(
      new Request('https://app.example/api/webhooks', { method: 'POST', body: messageReceived() }),
    );
    expect(response.status).toBe(400);
    expect(log).not.toHaveBeenCalled();
  });

  it('Hono: the /webhooks route verifies a signed delivery', async () => {
    const delivery = await signedDelivery(SECRET, messageReceived('thr_hono'));
    const response = await hono.default.request('/webhooks', {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
    });
    expect(response.status).toBe(200);
    expect(log).toHaveBeenCalledWith(handledThread('thr_hono'));
  });

  it('Hono: refuses a delivery signed with another secret', async () => {
    const delivery = await signedDelivery(WRONG_SECRET);
    const response = await hono.default.request('/webhooks', {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
    });
    expect(response.status).toBe(401);
    expect(log).not.toHaveBeenCalled();
  });
});
