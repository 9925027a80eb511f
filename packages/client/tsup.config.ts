import { defineConfig } from 'tsup';

// `platform: 'neutral'`: the client uses only web-standard globals (fetch, Headers, AbortController),
// so one build serves Node 18+, Deno, Bun, browsers and edge runtimes. The contract stays external: it
// is a dependency, loaded once, shared with any other package of the toolkit.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  // No source maps: the build is unminified and readable as shipped (see open-choices).
  sourcemap: false,
  target: 'es2022',
  platform: 'neutral',
});
