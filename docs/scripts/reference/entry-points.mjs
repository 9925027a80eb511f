// @ts-check
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * @typedef {{ specifier: string, source: string, aliases: string[] }} EntryPoint
 *   `specifier` is what a user imports (`@svc-kit/webhooks/express`), `source` the file it is built from,
 *   `aliases` other specifiers of the same file (`@svc-kit/webhooks/node` next to `@svc-kit/webhooks`).
 */

/**
 * Finds the `types` file a condition tree of an `exports` entry points at (the ESM one when there are
 * several: the CJS declarations describe the same symbols).
 * @param {unknown} target
 * @returns {string | undefined}
 */
function typesPathOf(target) {
  if (typeof target === 'string') return target.endsWith('.d.ts') ? target : undefined;
  if (typeof target !== 'object' || target === null) return undefined;
  const conditions = /** @type {Record<string, unknown>} */ (target);
  if (typeof conditions.types === 'string' && conditions.types.endsWith('.d.ts')) return conditions.types;
  for (const key of ['node', 'import', 'default', 'require']) {
    const found = typesPathOf(conditions[key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * Maps a built declaration file back to the TypeScript source tsup built it from (`dist/x.d.ts` comes from
 * `src/x.ts` or `src/x/index.ts`).
 * @param {string} packageDir absolute
 * @param {string} typesPath relative to the package, e.g. `./dist/express.d.ts`
 */
function sourceOf(packageDir, typesPath) {
  const stem = typesPath
    .replace(/^\.\//, '')
    .replace(/^dist\//, '')
    .replace(/\.d\.ts$/, '');
  const candidates = [`src/${stem}.ts`, `src/${stem}/index.ts`, `src/${stem}.tsx`];
  for (const candidate of candidates) {
    const file = path.join(packageDir, candidate);
    if (existsSync(file)) return file;
  }
  throw new Error(
    `${typesPath} of ${packageDir} has no source file (looked for ${candidates.join(', ')}); ` +
      'the TypeScript reference cannot document it',
  );
}

/**
 * Every public entry point of a package, read from its `exports` map so the reference cannot miss one.
 * @param {string} packageDir absolute
 * @param {{ name: string, exports?: unknown }} manifest the package's package.json
 * @returns {EntryPoint[]}
 */
export function entryPointsOf(packageDir, manifest) {
  const exportsMap = manifest.exports;
  if (typeof exportsMap !== 'object' || exportsMap === null) {
    throw new Error(`${manifest.name} has no exports map yet`);
  }
  /** @type {EntryPoint[]} */
  const entries = [];
  for (const [subpath, target] of Object.entries(exportsMap)) {
    if (subpath === './package.json') continue;
    const typesPath = typesPathOf(target);
    if (!typesPath) continue; // a data file or a CSS export: nothing to document
    const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, '')}`;
    const source = sourceOf(packageDir, typesPath);
    const same = entries.find((entry) => entry.source === source);
    if (same) same.aliases.push(specifier);
    else entries.push({ specifier, source, aliases: [] });
  }
  if (entries.length === 0) throw new Error(`${manifest.name} exports no typed entry point`);
  return entries;
}
