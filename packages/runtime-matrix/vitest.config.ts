import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'runtime-matrix',
    include: ['test/**/*.test.ts'],
    // Starts the Next.js build and the Node installs when the run begins (see src/prepare.mjs).
    globalSetup: ['test/prepare.ts'],
  },
});
