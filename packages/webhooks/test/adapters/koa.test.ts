import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookMiddleware } from '@svc-kit/webhooks/koa';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { adapterContract } from './contract';
import { EVENT, errorOf, recordingWebhooks, signedDelivery } from './fixtures';

async function serve(app: Koa) {
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

adapterContract('koa', async (webhooks, options) => {
  const app = new Koa();
  // Koa logs a client's broken upload (the aborted-upload case) to stderr; the test asserts on behaviour.
  app.silent = true;
  app.use(webhookMiddleware(webhooks, { ...options, path: '/webhooks' }));
  const { base, close } = await serve(app);
  return { url: `${base}/webhooks`, send: (init) => fetch(`${base}/webhooks`, init), close };
});

describe('koa adapter', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  it('passes other paths on to the next middleware', async () => {
    const { webhooks, threads } = recordingWebhooks();
    const app = new Koa();
    app.use(webhookMiddleware(webhooks, { path: '/webhooks' }));
    app.use((ctx) => {
      ctx.body = { other: ctx.path };
    });
    const { base, close } = await serve(app);
    closers.push(close);

    const delivery = await signedDelivery();
    const hook = await fetch(`${base}/webhooks`, {
      method: 'POST',
      body: delivery.body,
      headers: delivery.headers,
    });
    expect(hook.status).toBe(200);
    expect(await (await fetch(`${base}/elsewhere`)).json()).toEqual({ other: '/elsewhere' });
    expect(threads).toEqual([EVENT.data.thread_id]);
  });

  it('refuses, with the fix, a body a parser left on ctx.request.body', async () => {
    const { webhooks, received } = recordingWebhooks();
    const app = new Koa();
    app.use(async (ctx, next) => {
      // What koa-bodyparser does: read the stream, leave the parsed value on ctx.request.
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      (ctx.request as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      await next();
    });
    app.use(webhookMiddleware(webhooks));
    const { base, close } = await serve(app);
    closers.push(close);

    const delivery = await signedDelivery();
    const response = await fetch(`${base}/webhooks`, {
      method: 'POST',
      body: delivery.body,
      headers: delivery.headers,
    });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.reason).toBe('body_was_parsed');
    expect(error.message).toContain('before the body parser');
    expect(received).toEqual([]);
  });
});
