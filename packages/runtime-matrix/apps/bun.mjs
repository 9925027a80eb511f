// Bun: the README's fetch handler, Hono, h3 and Elysia quickstarts, imported as the TypeScript the README
// shows (Bun strips the types itself), each served with the matrix's routes beside it.
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { Elysia } from 'elysia';
import { fetchCells } from './fetch-cells.mjs';
import * as elysiaExample from './readme/examples/elysia.ts';
import * as fetchExample from './readme/examples/fetch.ts';
import * as h3Example from './readme/examples/h3.ts';
import * as honoExample from './readme/examples/hono.ts';
import { firstSnippet } from './readme/first-snippet.ts';
import { rotationWebhooks } from './readme/rotation.ts';
import { createRoutes, jsonResponse } from './routes.mjs';

const routes = createRoutes({ firstSnippet, rotationWebhooks });

function elysiaRoutes() {
  const handleRotation = createFetchHandler(routes.rotation);
  const handleParsed = createFetchHandler(routes.parsed);
  return (
    new Elysia()
      // Hand over the untouched request: a handler that takes `body` makes Elysia parse it first.
      .post('/rotation', ({ request }) => handleRotation(request))
      .post('/parsed', ({ body, request }) =>
        body === undefined ? new Response('no body', { status: 500 }) : handleParsed(request),
      )
      .post('/verify', async ({ request }) =>
        jsonResponse(routes.verify(await request.text(), request.headers)),
      )
  );
}

const cells = fetchCells({ fetch: fetchExample, hono: honoExample, h3: h3Example }, routes);
const ready = Object.fromEntries(
  Object.entries(cells).map(([framework, fetch]) => [
    framework,
    Bun.serve({ port: 0, hostname: '127.0.0.1', fetch }).port,
  ]),
);
// "On Bun: app.listen(3000)", as the README says; the matrix's routes on a server of their own.
const quickstart = elysiaExample.app.listen({ port: 0, hostname: '127.0.0.1' }).server;
const own = elysiaRoutes().listen({ port: 0, hostname: '127.0.0.1' }).server;
ready.Elysia = [`http://127.0.0.1:${quickstart.port}`, `http://127.0.0.1:${own.port}`];
console.log(JSON.stringify({ ready, runtime: `bun ${Bun.version}` }));
