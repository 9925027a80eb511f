// The same routes on Next.js's edge runtime; the README's quickstart is app/edge/webhooks/route.js.
import { firstSnippet } from '../../../../readme/first-snippet.js';
import { rotationWebhooks } from '../../../../readme/rotation.js';
import { createRoutes } from '../../../../routes.mjs';
import { createWebRoutes } from '../../../../web.mjs';

export const runtime = 'edge';

const app = createWebRoutes(createRoutes({ firstSnippet, rotationWebhooks }));

export async function POST(request) {
  return app(request);
}
