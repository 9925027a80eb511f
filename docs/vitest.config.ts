import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'docs',
    // Test files shown on the testing page live with the other snippets and run as they are.
    include: ['test/**/*.test.ts', 'snippets/**/*.test.ts'],
    // The site is built once (or found fresh) before any test; see test/setup/build-site.ts.
    globalSetup: ['test/setup/build-site.ts'],
    // A real browser crawling every page of the site needs more than the default five seconds.
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
