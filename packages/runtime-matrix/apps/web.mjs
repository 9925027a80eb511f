// The Web-standard routes (Request in, Response out), for runtimes that serve a fetch function: Bun,
// Deno, workerd, the Edge runtime, Next.js route handlers.
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { jsonResponse } from './routes.mjs';

/** `/rotation`, `/parsed` and `/verify` of `createRoutes`, as one fetch function. */
export function createWebRoutes(routes) {
  const handleRotation = createFetchHandler(routes.rotation);
  const handleParsed = createFetchHandler(routes.parsed);
  return async (request) => {
    // The last segment: Next.js serves the same routes below /edge/ as well.
    const pathname = `/${new URL(request.url).pathname.split('/').pop()}`;
    if (pathname === '/rotation') return handleRotation(request);
    if (pathname === '/parsed') {
      // The mistake: reading the body before the SDK.
      await request.json();
      return handleParsed(request);
    }
    if (pathname === '/verify') return jsonResponse(routes.verify(await request.text(), request.headers));
    return new Response('not found', { status: 404 });
  };
}

/**
 * The README's quickstart, untouched, on `/webhooks`, and `rest` on every other path: what a user does
 * who mounts the quickstart in an app that has other routes.
 */
export function withQuickstart(quickstart, rest) {
  return (request) => (new URL(request.url).pathname === '/webhooks' ? quickstart(request) : rest(request));
}
