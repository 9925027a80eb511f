import { defineConfig } from 'tsup';
import { copyRuntimeFiles } from './runtime-files.js';

// The service is an application, not a library: ESM only, no .d.ts. Workspace packages and npm
// dependencies stay external and are resolved from node_modules at run time.
export default defineConfig({
  entry: { main: 'src/main.ts', sandbox: 'src/sandbox-cli.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  // dist/portal/ is the portal's Vite build (portal/), served by the service: a service build keeps it.
  clean: ['!portal', '!portal/**'],
  sourcemap: true,
  dts: false,
  onSuccess: async () => copyRuntimeFiles('dist'),
});
