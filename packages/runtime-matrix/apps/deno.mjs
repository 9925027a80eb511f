// Deno: the README's fetch handler, Hono and h3 quickstarts, imported as the TypeScript the README shows
// (Deno strips the types itself), each served by Deno.serve with the matrix's routes beside it.
import { fetchCells } from './fetch-cells.mjs';
import * as fetchExample from './readme/examples/fetch.ts';
import * as h3Example from './readme/examples/h3.ts';
import * as honoExample from './readme/examples/hono.ts';
import { firstSnippet } from './readme/first-snippet.ts';
import { rotationWebhooks } from './readme/rotation.ts';
import { createRoutes } from './routes.mjs';

const routes = createRoutes({ firstSnippet, rotationWebhooks });
const cells = fetchCells({ fetch: fetchExample, hono: honoExample, h3: h3Example }, routes);
const ready = Object.fromEntries(
  Object.entries(cells).map(([framework, fetch]) => [
    framework,
    Deno.serve({ port: 0, hostname: '127.0.0.1', onListen() {} }, fetch).addr.port,
  ]),
);
console.log(JSON.stringify({ ready, runtime: `deno ${Deno.version.deno}` }));
