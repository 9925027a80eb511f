// workerd (Cloudflare Workers): a module worker serving the README's fetch handler, Hono and h3
// quickstarts, bundled from the TypeScript the README shows by esbuild, as wrangler does. One service per
// framework, told which one by its FRAMEWORK binding.
import { fetchCells } from './fetch-cells.mjs';
import * as fetchExample from './readme/examples/fetch.ts';
import * as h3Example from './readme/examples/h3.ts';
import * as honoExample from './readme/examples/hono.ts';
import { firstSnippet } from './readme/first-snippet.ts';
import { rotationWebhooks } from './readme/rotation.ts';
import { createRoutes } from './routes.mjs';

const cells = fetchCells(
  { fetch: fetchExample, hono: honoExample, h3: h3Example },
  createRoutes({ firstSnippet, rotationWebhooks }),
);

export default {
  fetch(request, env) {
    return cells[env.FRAMEWORK](request);
  },
};
