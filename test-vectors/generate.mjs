// Writes the vector files. `node generate.mjs` writes them next to this script (what is committed);
// `node generate.mjs <dir>` writes them to <dir> instead, which is how the tests check for drift.
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderVectorFiles } from './src/render.mjs';

const outDir = resolve(process.argv[2] ?? fileURLToPath(new URL('.', import.meta.url)));
mkdirSync(outDir, { recursive: true });
for (const [name, text] of Object.entries(renderVectorFiles())) {
  writeFileSync(resolve(outDir, name), text);
  console.log(`wrote ${name} (${Buffer.byteLength(text)} bytes)`);
}
