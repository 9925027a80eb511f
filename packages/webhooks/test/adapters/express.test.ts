import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhooks } from '@svc-kit/webhooks';
import { webhookMiddleware } from '@svc-kit/webhooks/express';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { adapterContract } from './contract';
import { BODY, EVENT, errorOf, recordingWebhooks, SECRET, signedDelivery } from './fixtures';

async function listen(server: Server): Promise<{ base: string; close: () => Promise<void> }> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function serve(app: express.Express) {
  return listen(createServer(app));
}

adapterContract('express', async (webhooks, options) => {
  const app = express();
  app.post('/webhooks', webhookMiddleware(webhooks, options));
  const { base, close } = await serve(app);
  return { url: `${base}/webhooks`, send: (init) => fetch(`${base}/webhooks`, init), close };
});

describe('express adapter', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  async function start(app: express.Express) {
    const server = await serve(app);
    closers.push(server.close);
    return server.base;
  }

  async function post(url: string, delivery: { body: string; headers: Record<string, string> }) {
    return fetch(url, { method: 'POST', body: delivery.body, headers: delivery.headers });
  }

  it('refuses loudly, with the fix, when express.json() ran first, and reports it to onError once', async () => {
    const { webhooks, received, errors } = recordingWebhooks();
    const app = express();
    app.use(express.json());
    app.post('/webhooks', webhookMiddleware(webhooks));
    const base = await start(app);

    const delivery = await signedDelivery();
    const first = await post(`${base}/webhooks`, delivery);
    const second = await post(`${base}/webhooks`, delivery);

    for (const response of [first, second]) {
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.reason).toBe('body_was_parsed');
      expect(error.message).toContain('Mount webhookMiddleware before app.use(express.json())');
    }
    expect(received).toEqual([]);
    expect(errors.map((error) => error.reason)).toEqual(['body_was_parsed']);
  });

  it('refuses a body turned into text by express.text()', async () => {
    const { webhooks, received } = recordingWebhooks();
    const app = express();
    app.use(express.text({ type: '*/*' }));
    app.post('/webhooks', webhookMiddleware(webhooks));
    const base = await start(app);

    const response = await post(`${base}/webhooks`, await signedDelivery());
    expect(response.status).toBe(400);
    expect((await errorOf(response)).reason).toBe('body_was_parsed');
    expect(received).toEqual([]);
  });

  it('uses the Buffer left by express.raw()', async () => {
    const { webhooks, threads } = recordingWebhooks();
    const app = express();
    app.use(express.raw({ type: '*/*' }));
    app.post('/webhooks', webhookMiddleware(webhooks));
    const base = await start(app);

    const response = await post(`${base}/webhooks`, await signedDelivery());
    expect(response.status).toBe(200);
    expect(threads).toEqual([EVENT.data.thread_id]);
  });

  it('leaves other routes to their own parsers when mounted first', async () => {
    const { webhooks, threads } = recordingWebhooks();
    const app = express();
    app.post('/webhooks', webhookMiddleware(webhooks));
    app.use(express.json());
    app.post('/api/echo', (req, res) => {
      res.json({ got: req.body as unknown });
    });
    const base = await start(app);

    expect((await post(`${base}/webhooks`, await signedDelivery())).status).toBe(200);
    const echo = await fetch(`${base}/api/echo`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(await echo.json()).toEqual({ got: { a: 1 } });
    expect(threads).toEqual([EVENT.data.thread_id]);
  });

  it('with `path`, answers that path only and passes other requests on', async () => {
    const { webhooks, threads } = recordingWebhooks();
    const app = express();
    app.use(webhookMiddleware(webhooks, { path: '/hooks/service' }));
    app.use(express.json());
    app.post('/other', (req, res) => {
      res.status(201).json({ got: req.body as unknown });
    });
    const base = await start(app);

    const hook = await post(`${base}/hooks/service`, await signedDelivery());
    expect(hook.status).toBe(200);
    const other = await fetch(`${base}/other`, {
      method: 'POST',
      body: '{"b":2}',
      headers: { 'content-type': 'application/json' },
    });
    expect(other.status).toBe(201);
    expect(await other.json()).toEqual({ got: { b: 2 } });
    expect(threads).toEqual([EVENT.data.thread_id]);
  });

  describe('`path` matches as app.post() does in the same app', () => {
    const variants = [
      '/webhooks',
      '/webhooks/',
      '/WebHooks',
      '/webhooks//',
      '/webhooks/x',
      '/webhook',
      '/webhooks?x=1',
    ];

    // Two apps with the same settings: one routes with Express itself, one with the `path` option.
    async function statuses(settings: Record<string, boolean>) {
      const configure = (app: express.Express) => {
        for (const [name, value] of Object.entries(settings)) app.set(name, value);
        return app;
      };
      const byExpress = configure(express());
      byExpress.post('/webhooks', webhookMiddleware(new Webhooks({ secret: SECRET, dedupe: false })));
      const byOption = configure(express());
      byOption.use(webhookMiddleware(new Webhooks({ secret: SECRET, dedupe: false }), { path: '/webhooks' }));
      const [expressBase, optionBase] = [await start(byExpress), await start(byOption)];
      const delivery = await signedDelivery();
      const result: Record<string, [number, number]> = {};
      for (const variant of variants) {
        result[variant] = [
          (await post(`${expressBase}${variant}`, delivery)).status,
          (await post(`${optionBase}${variant}`, delivery)).status,
        ];
      }
      return result;
    }

    it.each([
      ['default settings', {}],
      ['strict routing', { 'strict routing': true }],
      ['case sensitive routing', { 'case sensitive routing': true }],
    ])('with %s', async (_name, settings) => {
      const result = await statuses(settings);
      for (const [variant, [byExpress, byOption]] of Object.entries(result)) {
        expect(byOption, variant).toBe(byExpress);
      }
      // The cases the option exists for, pinned so the comparison cannot pass on two 404s.
      expect(result['/webhooks']).toEqual([200, 200]);
      expect(result['/webhooks/']?.[0]).toBe('strict routing' in settings ? 404 : 200);
      expect(result['/WebHooks']?.[0]).toBe('case sensitive routing' in settings ? 404 : 200);
    });
  });

  it('answers 405 to a method other than POST', async () => {
    const { webhooks, received } = recordingWebhooks();
    const app = express();
    app.use('/webhooks', webhookMiddleware(webhooks));
    const base = await start(app);

    const response = await fetch(`${base}/webhooks`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect((await errorOf(response)).reason).toBe('method_not_allowed');
    expect(received).toEqual([]);
  });

  it('reads the stream when a skipped parser left an empty placeholder body (body-parser 1 / Express 4)', async () => {
    const { webhooks, threads } = recordingWebhooks();
    const middleware = webhookMiddleware(webhooks);
    // body-parser 1 sets `req.body = {}` before it checks the content type, and leaves the stream unread.
    const server = createServer((req, res) => {
      Object.assign(req, { body: {} });
      middleware(req, res, (error) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
    const { base, close } = await listen(server);
    closers.push(close);

    const response = await post(`${base}/webhooks`, await signedDelivery());
    expect(response.status).toBe(200);
    expect(threads).toEqual([EVENT.data.thread_id]);
  });

  it('runs on a bare node:http server', async () => {
    const webhooks = new Webhooks({ secret: SECRET });
    const middleware = webhookMiddleware(webhooks);
    const server = createServer((req, res) => middleware(req, res, () => res.end('next')));
    const { base, close } = await listen(server);
    closers.push(close);

    const delivery = await signedDelivery();
    expect((await post(`${base}/`, delivery)).status).toBe(200);
    const tampered = await post(`${base}/`, { ...delivery, body: BODY.replace('acme', 'acne') });
    expect(tampered.status).toBe(401);
  });

  it('refuses a maxBodyBytes that is not a positive whole number at set-up', () => {
    const webhooks = new Webhooks({ secret: SECRET });
    for (const maxBodyBytes of [0, -1, 1.5, Number.NaN]) {
      expect(() => webhookMiddleware(webhooks, { maxBodyBytes })).toThrow(
        expect.objectContaining({ reason: 'invalid_options' }),
      );
    }
  });
});
