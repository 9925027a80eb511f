// The examples are the README's quickstarts (see readme-quickstarts.test.ts); here each one really runs
// and receives a signed delivery, and refuses a forged one, through its framework.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from 'vitest';
import { EVENT, SECRET, signedDelivery } from './fixtures';

const LOGGED = `message in thread ${EVENT.data.thread_id} for ${EVENT.identity}`;

let log: MockInstance<typeof console.log>;
beforeAll(() => {
  vi.stubEnv('SVC_WEBHOOK_SECRET', SECRET);
  vi.stubEnv('PORT', '0');
  log = vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterAll(() => {
  vi.unstubAllEnvs();
  log.mockRestore();
});

async function post(send: (init: RequestInit) => Promise<Response>) {
  log.mockClear();
  const delivery = await signedDelivery();
  const accepted = await send({ method: 'POST', body: delivery.body, headers: delivery.headers });
  const forged = await send({
    method: 'POST',
    body: delivery.body.replace('acme', 'evil'),
    headers: delivery.headers,
  });
  return { accepted: accepted.status, forged: forged.status, logged: log.mock.calls.map((call) => call[0]) };
}

describe('examples', () => {
  it.each(['express', 'node-http', 'koa'])('%s.ts receives a delivery', async (name) => {
    const { server } = (await import(`../../examples/${name}.ts`)) as { server: Server };
    if (!server.listening) await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const result = await post((init) => fetch(`http://127.0.0.1:${port}/webhooks`, init));
      expect(result).toEqual({ accepted: 200, forged: 401, logged: [LOGGED] });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('fastify.ts receives a delivery', async () => {
    const { app } = await import('../../examples/fastify');
    const address = app.server.address() as AddressInfo;
    try {
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      const result = await post((init) => fetch(`http://${host}:${address.port}/webhooks`, init));
      expect(result).toEqual({ accepted: 200, forged: 401, logged: [LOGGED] });
    } finally {
      await app.close();
    }
  });

  it('next-app-router.ts receives a delivery', async () => {
    const { POST } = await import('../../examples/next-app-router');
    const result = await post((init) => POST(new Request('https://app.example/webhooks', init)));
    expect(result).toEqual({ accepted: 200, forged: 401, logged: [LOGGED] });
  });

  it('h3.ts receives a delivery', async () => {
    const { app } = await import('../../examples/h3');
    const result = await post(async (init) => app.fetch(new Request('http://localhost/webhooks', init)));
    expect(result).toEqual({ accepted: 200, forged: 401, logged: [LOGGED] });
  });

  it('elysia.ts receives a delivery', async () => {
    const { app } = await import('../../examples/elysia');
    const result = await post(async (init) => app.handle(new Request('http://localhost/webhooks', init)));
    expect(result).toEqual({ accepted: 200, forged: 401, logged: [LOGGED] });
  });

  it('fetch.ts receives a delivery', async () => {
    const { default: handler } = await import('../../examples/fetch');
    const result = await post((init) => handler.fetch(new Request('https://app.example/webhooks', init)));
    expect(result).toEqual({ accepted: 200, forged: 401, logged: [LOGGED] });
  });

  it('hono.ts receives a delivery', async () => {
    const { default: app } = await import('../../examples/hono');
    const result = await post(async (init) => app.request('/webhooks', init));
    expect(result).toEqual({ accepted: 200, forged: 401, logged: [LOGGED] });
  });
});
