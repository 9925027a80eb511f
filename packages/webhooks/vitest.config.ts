import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

// Tests import the package by name, like users do, but run against the sources (no build in the loop).
// One test, test/dist.test.ts, checks the built package through Node's own resolution instead.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@svc-kit\/webhooks$/, replacement: src('index.node.ts') },
      { find: /^@svc-kit\/webhooks\/web$/, replacement: src('index.web.ts') },
      { find: /^@svc-kit\/webhooks\/node$/, replacement: src('index.node.ts') },
      {
        find: /^@svc-kit\/webhooks\/(express|fastify|fetch|node-http|koa)$/,
        replacement: src('adapters/$1.ts'),
      },
    ],
  },
  test: {
    name: 'webhooks',
    include: ['test/**/*.test.ts'],
  },
});
