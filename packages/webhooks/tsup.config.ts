import { defineConfig } from 'tsup';

// The core is built twice (Node and Web) and selected by export conditions. Adapters and the CLI import it
// through the package's own name, kept external, so one copy of the core (and of its error classes for
// `instanceof`) is loaded at run time, and the condition picks the right build for the runtime.
const SELF = '@svc-kit/webhooks';

const library = {
  'index.node': 'src/index.node.ts',
  'index.web': 'src/index.web.ts',
  'adapters/express': 'src/adapters/express.ts',
  'adapters/fastify': 'src/adapters/fastify.ts',
  'adapters/fetch': 'src/adapters/fetch.ts',
  'adapters/node-http': 'src/adapters/node-http.ts',
  'adapters/koa': 'src/adapters/koa.ts',
};

export default defineConfig([
  {
    entry: library,
    format: ['esm', 'cjs'],
    target: 'es2022',
    platform: 'node',
    splitting: false,
    // Keep `node:crypto` as written: runtimes such as Deno and Bun resolve the prefixed name.
    removeNodeProtocol: false,
    // No source maps: the build is unminified, one readable file per entry (see open-choices).
    sourcemap: false,
    external: [SELF],
    dts: {
      // Adapter types import the core by name; during the build that name must resolve to the sources,
      // since dist does not exist yet on a clean build.
      compilerOptions: { paths: { [SELF]: ['./src/index.node.ts'] } },
    },
  },
  {
    entry: { 'cli/main': 'src/cli/main.ts' },
    format: ['esm'],
    target: 'es2022',
    platform: 'node',
    splitting: false,
    // Keep `node:crypto` as written: runtimes such as Deno and Bun resolve the prefixed name.
    removeNodeProtocol: false,
    external: [SELF],
  },
]);
