import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// One run over every workspace; each folder keeps its own vitest.config.ts.
export default defineConfig({
  test: {
    projects: ['packages/*', 'reference-service', 'test-vectors', 'docs'],
    // At least two files at once, also on two cores (vitest's default there is one): most files wait on
    // child processes, databases and browsers. On the two-core CI machine the whole suite took 1,472 s
    // one file at a time and 752 s two at a time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
