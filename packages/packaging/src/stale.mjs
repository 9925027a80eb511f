// Whether a package's build is out of date: what `build-if-stale.mjs` decides on.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What a package's build reads: its sources and the files that configure the build. */
const INPUT_DIRS = ['src', 'bin', 'scripts'];
const INPUT_FILES = ['package.json', 'tsup.config.ts', 'tsconfig.json'];

/**
 * @param {string} path a file or a folder
 * @returns {number} the newest modification time of the file or of any file under the folder (0 when absent)
 */
function newestUnder(path) {
  if (!existsSync(path)) return 0;
  if (!statSync(path).isDirectory()) return statSync(path).mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    // A linked file counts by what it points to (statSync follows the link).
    if (entry.isFile() || entry.isSymbolicLink()) {
      const path = join(entry.parentPath, entry.name);
      if (existsSync(path)) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

/**
 * Why `outputs` (files) need building from `inputs` (files or folders; absent ones are ignored), or
 * `undefined` when every output exists and is newer than every input.
 * @param {readonly string[]} outputs
 * @param {readonly string[]} inputs
 * @returns {string | undefined}
 */
export function staleAgainst(outputs, inputs) {
  const missing = outputs.find((file) => !existsSync(file));
  if (missing !== undefined) return `${missing} is missing`;
  const built = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  const newest = Math.max(0, ...inputs.map(newestUnder));
  return newest > built ? 'a source is newer than the build' : undefined;
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
  // Named as the manifest names it, relative to the package.
  const missing = entries.find((file) => !existsSync(join(packageDir, file)));
  if (missing !== undefined) return `${missing} is missing`;
  return staleAgainst(
    entries.map((file) => join(packageDir, file)),
    [...INPUT_DIRS, ...INPUT_FILES].map((name) => join(packageDir, name)),
  );
}
