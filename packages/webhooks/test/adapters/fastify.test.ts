import { webhookPlugin } from '@svc-kit/webhooks/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { adapterContract } from './contract';
import { EVENT, errorOf, recordingWebhooks, signedDelivery } from './fixtures';

async function listen(app: FastifyInstance): Promise<string> {
  return app.listen({ port: 0, host: '127.0.0.1' });
}

adapterContract('fastify', async (webhooks, options) => {
  const app = Fastify();
  await app.register(webhookPlugin, { webhooks, path: '/webhooks', ...options });
  const base = await listen(app);
  return {
    url: `${base}/webhooks`,
    send: (init) => fetch(`${base}/webhooks`, init),
    close: () => app.close(),
  };
});

describe('fastify adapter', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  async function start(build: (app: FastifyInstance) => Promise<void>): Promise<string> {
    const app = Fastify();
    apps.push(app);
    await build(app);
    return listen(app);
  }

  it('keeps the JSON parser of the rest of the app', async () => {
    const { webhooks, threads } = recordingWebhooks();
    const base = await start(async (app) => {
      await app.register(webhookPlugin, { webhooks, path: '/webhooks' });
      app.post('/api/echo', async (request) => ({
        got: request.body,
        isBuffer: Buffer.isBuffer(request.body),
      }));
    });

    const delivery = await signedDelivery();
    const hook = await fetch(`${base}/webhooks`, {
      method: 'POST',
      body: delivery.body,
      headers: delivery.headers,
    });
    expect(hook.status).toBe(200);
    expect(threads).toEqual([EVENT.data.thread_id]);

    const echo = await fetch(`${base}/api/echo`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(await echo.json()).toEqual({ got: { a: 1 }, isBuffer: false });
  });

  it('defaults the route to /webhooks and honours the register prefix', async () => {
    const { webhooks, threads } = recordingWebhooks();
    const base = await start(async (app) => {
      await app.register(webhookPlugin, { webhooks, prefix: '/service' });
    });
    const delivery = await signedDelivery();
    const response = await fetch(`${base}/service/webhooks`, {
      method: 'POST',
      body: delivery.body,
      headers: delivery.headers,
    });
    expect(response.status).toBe(200);
    expect(threads).toEqual([EVENT.data.thread_id]);
  });

  it('verifies whatever the content type, or none', async () => {
    const { webhooks, threads } = recordingWebhooks();
    const base = await start(async (app) => {
      await app.register(webhookPlugin, { webhooks });
    });
    for (const contentType of ['text/plain', 'application/octet-stream', undefined]) {
      // One event per content type: the default duplicate guard would answer a repeat without handlers.
      const delivery = await signedDelivery({
        body: JSON.stringify({ ...EVENT, id: `evt_ct_${contentType}` }),
      });
      const headers: Record<string, string> = { ...delivery.headers };
      if (contentType === undefined) delete headers['content-type'];
      else headers['content-type'] = contentType;
      const body = new TextEncoder().encode(delivery.body);
      const response = await fetch(`${base}/webhooks`, { method: 'POST', body, headers });
      expect(response.status, String(contentType)).toBe(200);
    }
    expect(threads).toHaveLength(3);
  });

  it('refuses an empty POST with a typed reason', async () => {
    const { webhooks } = recordingWebhooks();
    const base = await start(async (app) => {
      await app.register(webhookPlugin, { webhooks });
    });
    const { headers } = await signedDelivery();
    const response = await fetch(`${base}/webhooks`, { method: 'POST', headers });
    expect(response.status).toBe(401);
    expect((await errorOf(response)).reason).toBe('no_matching_signature');
  });

  it('fails registration without a Webhooks instance', async () => {
    const app = Fastify();
    apps.push(app);
    await expect(
      app.register(webhookPlugin, {} as unknown as Parameters<typeof webhookPlugin>[1]).ready(),
    ).rejects.toMatchObject({ reason: 'invalid_options' });
  });
});
