// `npm run bench`: the edge bundle sizes of our entry points beside standardwebhooks', with the budgets.
import { fileURLToPath } from 'node:url';
import { CASES, kb, measure, REFERENCE_CASES } from '../src/bundle-size.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const rows = [];
for (const bundleCase of [...CASES, ...REFERENCE_CASES]) rows.push(await measure(bundleCase, here));

const width = Math.max(...rows.map((row) => row.name.length));
console.log('\nEdge bundle sizes (esbuild --bundle --minify --platform=browser, then gzip):\n');
console.log(`${'import'.padEnd(width)}  ${'minified'.padStart(9)}  ${'gzip'.padStart(8)}  budget (gzip)`);
for (const row of rows) {
  const verdict =
    row.limitBytes === undefined
      ? '(reference)'
      : `${kb(row.limitBytes)} ${row.gzipped <= row.limitBytes ? 'PASS' : 'MISS'}`;
  console.log(
    `${row.name.padEnd(width)}  ${kb(row.minified).padStart(9)}  ${kb(row.gzipped).padStart(8)}  ${verdict}`,
  );
}
