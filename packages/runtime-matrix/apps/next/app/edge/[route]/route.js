// The same route handler on Next.js's edge runtime.
import { createWebApp } from '../../../../web.mjs';

export const runtime = 'edge';

const app = createWebApp();

export async function POST(request) {
  return app(request);
}
