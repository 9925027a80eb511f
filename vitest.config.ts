import { defineConfig } from 'vitest/config';

// One run over every workspace; each folder keeps its own vitest.config.ts.
export default defineConfig({
  test: {
    projects: ['packages/*', 'reference-service', 'test-vectors', 'docs'],
  },
});
