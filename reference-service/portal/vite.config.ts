import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The portal is built into the service's dist/ and served by it at `/` under a strict CSP: no inline
// script or style, no remote asset. Hash routing, so the server needs only index.html and assets/.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  // JSX through Vite's own transformer: Preact needs no plugin for that.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/portal', import.meta.url)),
    emptyOutDir: true,
    // Inline data: assets would be fine under img-src data:, but a stylesheet or script never is.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
  },
  logLevel: 'warn',
});
