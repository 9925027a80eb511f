// The cells of a runtime that serves fetch functions (Bun, Deno, workerd): each README quickstart meant
// for such a runtime, untouched, on /webhooks, with the matrix's routes in the same framework beside it.
import { h3Routes } from './h3.mjs';
import { honoRoutes } from './hono.mjs';
import { createWebRoutes, withQuickstart } from './web.mjs';

/**
 * `readme`: the README's modules, `{ fetch, hono, h3 }` (apps/readme/examples/), `routes`: `createRoutes`.
 * Returns `{ framework: (request) => Promise<Response> }`.
 */
export function fetchCells(readme, routes) {
  const hono = honoRoutes(routes);
  const h3 = h3Routes(routes);
  return {
    'fetch handler': withQuickstart(readme.fetch.default.fetch, createWebRoutes(routes)),
    Hono: withQuickstart(readme.hono.default.fetch, hono.fetch),
    h3: withQuickstart(
      (request) => readme.h3.app.fetch(request),
      (request) => h3.fetch(request),
    ),
  };
}
