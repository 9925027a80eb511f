// A Web-standard app (Request in, Response out) with the four routes, for runtimes that serve a fetch
// function: Bun, Deno, workerd, the Edge runtime, Next.js route handlers.
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { jsonResponse, quickstartWebhooks, rotationWebhooks, verifyRoute } from './readme.mjs';

export function createWebApp() {
  const handleWebhook = createFetchHandler(quickstartWebhooks());
  const handleRotation = createFetchHandler(rotationWebhooks());
  return async (request) => {
    // The last segment: Next.js serves the same routes below /edge/ as well.
    const pathname = `/${new URL(request.url).pathname.split('/').pop()}`;
    if (pathname === '/webhooks') return handleWebhook(request);
    if (pathname === '/rotation') return handleRotation(request);
    if (pathname === '/parsed') {
      // The mistake: reading the body before the SDK.
      await request.json();
      return handleWebhook(request);
    }
    if (pathname === '/verify') return jsonResponse(verifyRoute(await request.text(), request.headers));
    return new Response('not found', { status: 404 });
  };
}
