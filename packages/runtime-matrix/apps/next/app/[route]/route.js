// The matrix's own routes (see routes.mjs) as a Next.js route handler on the Node.js runtime (the
// default); the README's quickstart is app/webhooks/route.js, written from the README on every run.
import { firstSnippet } from '../../../readme/first-snippet.js';
import { rotationWebhooks } from '../../../readme/rotation.js';
import { createRoutes } from '../../../routes.mjs';
import { createWebRoutes } from '../../../web.mjs';

const app = createWebRoutes(createRoutes({ firstSnippet, rotationWebhooks }));

export async function POST(request) {
  return app(request);
}
