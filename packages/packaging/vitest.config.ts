import { defineConfig } from 'vitest/config';

// These tests pack the built packages (npm pack) and compile or bundle what they hold: slow, so generous
// timeouts; they never measure time.
export default defineConfig({
  test: {
    name: 'packaging',
    include: ['test/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
