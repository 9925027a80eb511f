// The README's Hono quickstart with the matrix's other routes; served by @hono/node-server on Node and by
// Bun.serve on Bun.
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { Hono } from 'hono';
import { jsonResponse, quickstartWebhooks, rotationWebhooks, verifyRoute } from './readme.mjs';

export function honoApp() {
  const handleWebhook = createFetchHandler(quickstartWebhooks());
  const handleRotation = createFetchHandler(rotationWebhooks());
  const app = new Hono();
  // c.req.raw is the untouched Request: hand it over before anything reads the body.
  app.post('/webhooks', (c) => handleWebhook(c.req.raw));
  app.post('/rotation', (c) => handleRotation(c.req.raw));
  app.post('/parsed', async (c) => {
    await c.req.json();
    return handleWebhook(c.req.raw);
  });
  app.post('/verify', async (c) => jsonResponse(verifyRoute(await c.req.text(), c.req.raw.headers)));
  return app;
}
