import { defineConfig } from 'tsup';
import { copyRuntimeFiles } from './runtime-files.js';

// The service is an application, not a library: ESM only, no .d.ts. Workspace packages and npm
// dependencies stay external and are resolved from node_modules at run time.
export default defineConfig({
  entry: { main: 'src/main.ts', sandbox: 'src/sandbox/cli.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  clean: true,
  sourcemap: true,
  dts: false,
  onSuccess: async () => copyRuntimeFiles('dist'),
});
