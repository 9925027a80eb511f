import { defineConfig } from 'tsup';
import { copyRuntimeFiles } from '../runtime-files.js';

const OUT_DIR = 'node_modules/.cache/svc-bench';

// The benchmark is bundled like the service (npm run build) and run from its own folder.
export default defineConfig({
  entry: { delivery: 'bench/delivery.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  outDir: OUT_DIR,
  clean: true,
  silent: true,
  onSuccess: async () => copyRuntimeFiles(OUT_DIR),
});
