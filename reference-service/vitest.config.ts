import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'reference-service',
    include: ['test/**/*.test.ts'],
    // Each file boots its own databases (PGlite in a temp dir, a throwaway PostgreSQL database).
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
