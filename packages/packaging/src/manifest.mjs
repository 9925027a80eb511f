// What a package's tarball must hold, derived from its own package.json and the files it ships: every file
// the manifest points to (exports, main, module, types, typesVersions, bin), every file those import by a
// relative path (shared declaration chunks), the LICENSE, README and the other listed documents. Used by
// the prepack guard (pack fails when something is missing) and by the tests (the packed list must equal it).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, posix } from 'node:path';

/** @typedef {{ expected: string[], problems: string[] }} PackageCheck */

const REQUIRED_METADATA = ['license', 'repository', 'homepage', 'bugs', 'keywords'];
const ALWAYS_SHIPPED = ['package.json', 'README.md', 'LICENSE'];
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;
const MARKDOWN_LINK = /\]\(([^)\s]+)(?:\s[^)]*)?\)/g;

/**
 * Every string leaf of an exports / typesVersions / bin value.
 * @param {unknown} value
 * @returns {string[]}
 */
function leaves(value) {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(leaves);
  return [];
}

/** @param {string} path */
const clean = (path) => posix.normalize(path.replaceAll('\\', '/')).replace(/^\.\//, '');

/**
 * A declaration file's import of `./x.js` means `./x.d.ts` (`.cjs` → `.d.cts`, `.mjs` → `.d.mts`).
 * @param {string} from the importing file
 * @param {string} specifier
 */
function importTarget(from, specifier) {
  const target = clean(posix.join(posix.dirname(from), specifier));
  if (!/\.d\.[cm]?ts$/.test(from)) return target;
  if (target.endsWith('.cjs')) return target.replace(/\.cjs$/, '.d.cts');
  if (target.endsWith('.mjs')) return target.replace(/\.mjs$/, '.d.mts');
  if (target.endsWith('.js')) return target.replace(/\.js$/, '.d.ts');
  return /\.d\.[cm]?ts$/.test(target) ? target : `${target}.d.ts`;
}

/** @param {string} packageDir */
function readManifest(packageDir) {
  return JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
}

/**
 * @param {string} packageDir
 * @param {{ licenseText?: string | undefined }} [options] the repository's LICENSE, which each package's copy must equal
 * @returns {PackageCheck}
 */
export function checkPackage(packageDir, options = {}) {
  const manifest = readManifest(packageDir);
  /** @type {string[]} */
  const problems = [];
  const has = (/** @type {string} */ file) => {
    const path = join(packageDir, file);
    return existsSync(path) && statSync(path).isFile() && statSync(path).size > 0;
  };

  for (const field of REQUIRED_METADATA) {
    if (manifest[field] === undefined) problems.push(`package.json has no "${field}"`);
  }
  if (typeof manifest.repository === 'object' && typeof manifest.repository?.directory !== 'string') {
    problems.push('package.json "repository" has no "directory"');
  }

  const pointed = [
    manifest.main,
    manifest.module,
    manifest.types,
    ...leaves(manifest.exports),
    ...leaves(manifest.typesVersions),
    ...leaves(manifest.bin),
  ].filter((path) => typeof path === 'string' && path !== './package.json');

  const documents = new Set(ALWAYS_SHIPPED);
  for (const entry of manifest.files ?? []) {
    // Listed documents (EVENTS.md) ship as they are; folders are covered by what the manifest points to.
    if (/\.[a-z]+$/i.test(entry) && !entry.includes('*')) documents.add(clean(entry));
  }
  for (const document of documents) {
    if (!has(document)) problems.push(`${document} is missing or empty`);
  }

  /** @type {Set<string>} */
  const built = new Set();
  const queue = pointed.map(clean);
  while (queue.length > 0) {
    const file = /** @type {string} */ (queue.pop());
    if (built.has(file) || documents.has(file)) continue;
    built.add(file);
    if (!has(file)) {
      problems.push(`${file} is missing or empty (is a build running, or did it fail?)`);
      continue;
    }
    if (!/\.(c|m)?js$|\.d\.(c|m)?ts$/.test(file)) continue;
    for (const match of readFileSync(join(packageDir, file), 'utf8').matchAll(RELATIVE_IMPORT)) {
      queue.push(importTarget(file, /** @type {string} */ (match[1])));
    }
  }

  if (options.licenseText !== undefined && has('LICENSE')) {
    if (readFileSync(join(packageDir, 'LICENSE'), 'utf8') !== options.licenseText) {
      problems.push("LICENSE differs from the repository's LICENSE");
    }
  }

  for (const document of [...documents].filter((file) => file.endsWith('.md'))) {
    if (!has(document)) continue;
    for (const match of readFileSync(join(packageDir, document), 'utf8').matchAll(MARKDOWN_LINK)) {
      const target = /** @type {string} */ (match[1]);
      if (!/^(https?:|mailto:|#)/.test(target)) {
        problems.push(
          `${document} links to "${target}", which breaks on the registry's page: use an absolute URL`,
        );
      }
    }
  }

  return { expected: [...documents, ...built].sort(), problems };
}

/**
 * The repository's LICENSE, found by walking up from the package folder.
 * @param {string} packageDir
 * @returns {string | undefined}
 */
export function repositoryLicense(packageDir) {
  let dir = normalize(packageDir);
  for (;;) {
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
    if (existsSync(join(dir, 'LICENSE')) && existsSync(join(dir, 'package.json'))) {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (Array.isArray(manifest.workspaces)) return readFileSync(join(dir, 'LICENSE'), 'utf8');
    }
  }
}
