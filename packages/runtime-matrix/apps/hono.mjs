// The matrix's own routes in Hono (see routes.mjs), beside the README's Hono quickstart.
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { Hono } from 'hono';
import { jsonResponse } from './routes.mjs';

export function honoRoutes(routes) {
  const handleRotation = createFetchHandler(routes.rotation);
  const handleParsed = createFetchHandler(routes.parsed);
  const app = new Hono();
  app.post('/rotation', (c) => handleRotation(c.req.raw));
  app.post('/parsed', async (c) => {
    await c.req.json();
    return handleParsed(c.req.raw);
  });
  app.post('/verify', async (c) => jsonResponse(routes.verify(await c.req.text(), c.req.raw.headers)));
  return app;
}
