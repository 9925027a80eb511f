// A Next.js route handler on the Node.js runtime (the default).
import { createWebApp } from '../../../web.mjs';

const app = createWebApp();

export async function POST(request) {
  return app(request);
}
