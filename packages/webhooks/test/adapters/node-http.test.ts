import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookMiddleware } from '@svc-kit/webhooks/express';
import { createNodeHandler } from '@svc-kit/webhooks/node-http';
import { describe, expect, it } from 'vitest';
import { adapterContract } from './contract';
import { recordingWebhooks, signedDelivery } from './fixtures';

async function listen(listener: Parameters<typeof createServer>[1]) {
  const server = createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

adapterContract('node:http (createNodeHandler)', async (webhooks, options) => {
  const { url, close } = await listen(createNodeHandler(webhooks, options));
  return { url, send: (init) => fetch(url, init), close };
});

// The README once showed the Express middleware on a bare server called without `next`; deployed code
// still does, so it must survive an aborted upload too.
adapterContract('express middleware on bare node:http, called without next', async (webhooks, options) => {
  const middleware = webhookMiddleware(webhooks, options) as (req: unknown, res: unknown) => void;
  const { url, close } = await listen((req, res) => middleware(req, res));
  return { url, send: (init) => fetch(url, init), close };
});

describe('createNodeHandler', () => {
  it('answers a request whose body was already read with body_was_parsed', async () => {
    const { webhooks, received } = recordingWebhooks();
    const handler = createNodeHandler(webhooks);
    const { url, close } = await listen((req, res) => {
      req.on('end', () => handler(req, res));
      req.resume();
    });
    try {
      const delivery = await signedDelivery();
      const response = await fetch(url, { method: 'POST', body: delivery.body, headers: delivery.headers });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { reason: string } }).error.reason).toBe('body_was_parsed');
      expect(received).toEqual([]);
    } finally {
      await close();
    }
  });
});
