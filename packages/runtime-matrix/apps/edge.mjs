// The Edge runtime (Vercel's edge-runtime): the README's fetch handler quickstart, bundled from the
// TypeScript the README shows by esbuild with the conditions Next.js uses for the edge, behind the fetch
// event listener a user adds (as the README's comment says), with the matrix's routes beside it.
import handler from './readme/examples/fetch.ts';
import { firstSnippet } from './readme/first-snippet.ts';
import { rotationWebhooks } from './readme/rotation.ts';
import { createRoutes } from './routes.mjs';
import { createWebRoutes, withQuickstart } from './web.mjs';

const app = withQuickstart(handler.fetch, createWebRoutes(createRoutes({ firstSnippet, rotationWebhooks })));
addEventListener('fetch', (event) => event.respondWith(app(event.request)));
