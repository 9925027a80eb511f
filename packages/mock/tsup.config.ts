import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  // No source maps: the build is unminified and readable as shipped (see open-choices).
  sourcemap: false,
  target: 'es2022',
  platform: 'neutral',
  // The integrator's own msw must be the one that runs the handlers (one interceptor, one registry).
  external: ['msw', '@svc-kit/contract', '@svc-kit/webhooks'],
});
