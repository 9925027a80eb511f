import { defineConfig } from 'tsup';
import { copyRuntimeFiles } from '../runtime-files.js';

const OUT_DIR = 'node_modules/.cache/svc-bench';

// The benchmark is bundled like the service (npm run build) and run from its own folder.
export default defineConfig({
  entry: {
    index: 'bench/index.ts',
    'api-target': 'bench/api/target.ts',
    'memory-target': 'bench/memory-target.ts',
    'delivery-receiver': 'bench/delivery-receiver.ts',
    // The service's own entry point, for modes that start it as a container would (bench/isolation/).
    'service-main': 'src/main.ts',
  },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: OUT_DIR,
  // Loaded from node_modules as they are (CommonJS, native bindings), not bundled. `tsup` comes with the
  // test support the crash-loss figure shares with its test (bench/isolation/crash-loss.ts), unused there.
  external: ['autocannon', '@resvg/resvg-js', 'express', '@modelcontextprotocol/sdk', 'tsup'],
  clean: true,
  silent: true,
  onSuccess: async () => copyRuntimeFiles(OUT_DIR),
});
