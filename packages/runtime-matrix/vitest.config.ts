import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'runtime-matrix',
    include: ['test/**/*.test.ts'],
  },
});
