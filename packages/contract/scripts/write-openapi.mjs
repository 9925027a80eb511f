// Writes docs/public/openapi.json from the built package (run `npm run build` first).
import { mkdirSync, writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../dist/index.js';

const target = new URL('../../../docs/public/openapi.json', import.meta.url);
mkdirSync(new URL('.', target), { recursive: true });
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
