import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'reference-service',
    include: ['test/**/*.test.ts'],
    // The browser tests' portal, found or built once per run (never a Vite build per test file).
    globalSetup: ['test/portal/global-setup.ts', 'test/support/pglite-snapshot.global-setup.ts'],
    // Each file boots its own databases (PGlite in a temp dir, a throwaway PostgreSQL database).
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
