// Whether a package's build is out of date: what `build-if-stale.mjs` decides on.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What a package's build reads: its sources and the files that configure the build. */
const INPUT_DIRS = ['src', 'bin', 'scripts'];
const INPUT_FILES = ['package.json', 'tsup.config.ts', 'tsconfig.json'];

/** @param {string} dir @returns {number} the newest modification time under `dir` (0 when absent) */
function newestUnder(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * The files a consumer loads, as the manifest names them (`exports`, `main`, `types`, `bin`): a complete
 * build writes every one of them.
 * @param {Record<string, unknown>} manifest
 * @returns {string[]}
 */
export function builtEntryFiles(manifest) {
  /** @type {Set<string>} */
  const files = new Set();
  /** @param {unknown} value */
  const collect = (value) => {
    if (typeof value === 'string') {
      if (value.startsWith('./dist/')) files.add(value);
    } else if (value && typeof value === 'object') {
      for (const nested of Object.values(value)) collect(nested);
    }
  };
  collect([manifest.exports, manifest.main, manifest.types, manifest.bin]);
  return [...files].sort();
}

/**
 * Why the package at `packageDir` needs a build, or `undefined` when every built entry file is newer than
 * every input.
 * @param {string} packageDir
 * @returns {string | undefined}
 */
export function staleReason(packageDir) {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const entries = builtEntryFiles(manifest);
  if (entries.length === 0) return 'its manifest names no built file';
  const missing = entries.find((file) => !existsSync(join(packageDir, file)));
  if (missing !== undefined) return `${missing} is missing`;
  const built = Math.min(...entries.map((file) => statSync(join(packageDir, file)).mtimeMs));
  const inputs = Math.max(
    ...INPUT_DIRS.map((name) => newestUnder(join(packageDir, name))),
    ...INPUT_FILES.map((name) =>
      existsSync(join(packageDir, name)) ? statSync(join(packageDir, name)).mtimeMs : 0,
    ),
  );
  return inputs > built ? 'a source is newer than the build' : undefined;
}
