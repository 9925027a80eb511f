import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

// Tests import `@svc-kit/client` by name, like users do, but run against the sources. The contract is
// used as built (its dist). test/dist.test.ts loads this package's own build through Node's resolution.
export default defineProject({
  resolve: {
    alias: [
      { find: /^@svc-kit\/client$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
    ],
  },
  test: {
    name: 'client',
    include: ['test/**/*.test.ts'],
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
