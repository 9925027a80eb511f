// Bun: Bun.serve with the fetch handler, Hono and Elysia, each on a port the system picks.
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { Elysia } from 'elysia';
import { honoApp } from './hono.mjs';
import { jsonResponse, quickstartWebhooks, rotationWebhooks, verifyRoute } from './readme.mjs';
import { createWebApp } from './web.mjs';

function elysia() {
  const handleWebhook = createFetchHandler(quickstartWebhooks());
  const handleRotation = createFetchHandler(rotationWebhooks());
  const app = new Elysia()
    // Hand over the untouched request: a handler that takes `body` makes Elysia parse it first.
    .post('/webhooks', ({ request }) => handleWebhook(request))
    .post('/rotation', ({ request }) => handleRotation(request))
    .post('/parsed', ({ body, request }) =>
      body === undefined ? new Response('no body', { status: 500 }) : handleWebhook(request),
    )
    .post('/verify', async ({ request }) => jsonResponse(verifyRoute(await request.text(), request.headers)))
    .listen({ port: 0, hostname: '127.0.0.1' });
  return app.server.port;
}

const ports = {
  'Bun.serve': Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: createWebApp() }).port,
  Hono: Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: honoApp().fetch }).port,
  Elysia: elysia(),
};
console.log(JSON.stringify({ ready: ports, runtime: `bun ${Bun.version}` }));
