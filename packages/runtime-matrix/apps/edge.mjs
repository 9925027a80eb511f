// The Edge runtime (Vercel's edge-runtime): a fetch event listener. Bundled by the matrix with the
// conditions Next.js uses for the edge.
import { createWebApp } from './web.mjs';

const app = createWebApp();
addEventListener('fetch', (event) => event.respondWith(app(event.request)));
