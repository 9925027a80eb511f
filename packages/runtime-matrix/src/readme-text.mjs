// The SDK's README, as the cells run it: its first snippet, its rotation snippet and its quickstarts are
// taken from packages/webhooks/README.md by their HTML comment markers (invisible on npm) and written to
// apps/readme/ with only what a user adds around them. Bun and Deno import the TypeScript as is; the
// other runtimes get the same text with its types stripped by esbuild (and nothing else changed).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const README = fileURLToPath(new URL('../../webhooks/README.md', import.meta.url));
export const README_DIR = fileURLToPath(new URL('../apps/readme/', import.meta.url));

/** The fenced TypeScript block right after `<!-- marker ... -->`; an error if there is none. */
function blockAfter(readme, marker) {
  const match = new RegExp(`<!-- ${marker}[ \\-][^\\n]*\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\`\\n`).exec(readme);
  if (match === null)
    throw new Error(`packages/webhooks/README.md has no \`\`\`ts block after <!-- ${marker}.`);
  return { text: match[1], index: match.index };
}

/** `{ imports, body }`: the snippet's leading import lines, and the rest. */
function splitImports(text) {
  const lines = text.split('\n');
  let end = 0;
  while (end < lines.length && (lines[end].startsWith('import ') || lines[end].trim() === '')) end += 1;
  return { imports: lines.slice(0, end).join('\n').trim(), body: lines.slice(end).join('\n').trimEnd() };
}

const HEADER =
  '// Written by packages/runtime-matrix from packages/webhooks/README.md on every run: do not edit.\n';

/**
 * Every README text a cell runs, as `{ file: TypeScript source }` (paths below apps/readme/):
 * - `first-snippet.ts`: the README's first snippet, as the body of a function given the raw body and the
 *   request, which is where a user pastes it; it throws what the snippet throws.
 * - `rotation.ts`: the rotation snippet, returned from a function, with the import it needs.
 * - `examples/<name>.ts`: each quickstart, as is.
 */
export function readmeSources(readme = readFileSync(README, 'utf8')) {
  const first = blockAfter(readme, 'snippet: first');
  const firstTs = readme.indexOf('\n```ts\n');
  if (firstTs + 1 !== first.index + readme.slice(first.index).indexOf('```ts\n')) {
    throw new Error('The README block marked "snippet: first" is not the first ```ts block of the README.');
  }
  const snippet = splitImports(first.text);
  const rotation = blockAfter(readme, 'snippet: rotation').text.trim().replace(/;$/, '');
  /** @type {Record<string, string>} */
  const sources = {
    'first-snippet.ts': `${HEADER}${snippet.imports}

type Headers_ = Headers | Record<string, string | string[] | undefined>;

export function firstSnippet(rawBody: string | Uint8Array, req: { headers: Headers_ }) {
${snippet.body}
}
`,
    'rotation.ts': `${HEADER}import { Webhooks } from '@svc-kit/webhooks';

export function rotationWebhooks() {
  return ${rotation};
}
`,
  };
  for (const [, path, text] of readme.matchAll(
    /<!-- example: examples\/([\w.-]+\.ts) -->\n```ts\n([\s\S]*?)```\n/g,
  )) {
    sources[`examples/${path}`] = text;
  }
  return sources;
}

/**
 * The older major versions the README's headings name ("Express (5 or 4)", "Koa (3 or 2)"), installed
 * under npm aliases: the same quickstart with only its import specifier pointing at the alias, which is
 * what `express` or `koa` resolves to in a project that has that version.
 */
const OLDER_MAJORS = [
  { from: 'examples/express.ts', to: 'examples/express-4.ts', specifier: 'express', alias: 'express4' },
  { from: 'examples/koa.ts', to: 'examples/koa-2.ts', specifier: 'koa', alias: 'koa2' },
];

export function withOlderMajors(sources) {
  const all = { ...sources };
  for (const { from, to, specifier, alias } of OLDER_MAJORS) {
    const text = sources[from];
    const aliased = text?.replace(`from '${specifier}';`, `from '${alias}';`);
    if (aliased === undefined || aliased === text) {
      throw new Error(`The README's ${from} no longer imports '${specifier}' as the matrix expects.`);
    }
    all[to] = aliased;
  }
  return all;
}

/**
 * Writes apps/readme/: each source as `.ts`, and beside it as `.js` with the types stripped (esbuild's
 * `transform`, which removes annotations and keeps everything else). Returns the list of files.
 */
export function writeReadmeModules(sources = withOlderMajors(readmeSources())) {
  rmSync(README_DIR, { recursive: true, force: true });
  mkdirSync(join(README_DIR, 'examples'), { recursive: true });
  for (const [file, text] of Object.entries(sources)) {
    writeFileSync(join(README_DIR, file), text);
    const { code } = transformSync(text, { loader: 'ts', format: 'esm', target: 'es2022' });
    writeFileSync(join(README_DIR, file.replace(/\.ts$/, '.js')), code);
  }
  return Object.keys(sources);
}
