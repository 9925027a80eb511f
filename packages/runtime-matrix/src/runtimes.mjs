// Where each runtime's binary is, as installed from the npm registry. A package whose install script did
// not run (npm can be set to skip them) still has its binary in the platform package it depends on, so
// both places are tried, and a binary counts only once it has printed its version.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { lowerPriority } from './processes.mjs';

const require = createRequire(import.meta.url);
// Asynchronous throughout: the matrix starts every runtime at once, and a synchronous call here (an
// install, a `--version`) would hold back the start of all the others.
const run = promisify(execFile);
const NODE_VERSIONS_DIR = fileURLToPath(new URL('../node-versions/', import.meta.url));

function packageDir(name, from) {
  try {
    const paths = from === undefined ? undefined : [from];
    return dirname(require.resolve(`${name}/package.json`, paths === undefined ? undefined : { paths }));
  } catch {
    return undefined;
  }
}

function candidatesIn(packages, file, from) {
  return packages.flatMap((name) => {
    const dir = packageDir(name, from);
    return dir === undefined ? [] : [join(dir, file)];
  });
}

/** The first candidate that runs; `{ path, version }`, or an error naming every place looked at. */
async function firstRunnable(name, candidates, versionOf = (output) => output.trim().split('\n')[0]) {
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    try {
      const { stdout } = await run(path, ['--version'], { encoding: 'utf8', timeout: 30_000 });
      return { path, version: versionOf(stdout) };
    } catch {
      // A placeholder left by a skipped install script: try the next place.
    }
  }
  throw new Error(
    `${name}: no runnable binary in ${candidates.join(', ') || '(its package is not installed)'}; run npm install.`,
  );
}

const ARCH = { x64: 'x64', arm64: 'aarch64' }[process.arch] ?? process.arch;

export function bun() {
  return firstRunnable('bun', [
    ...candidatesIn(['bun'], 'bin/bun.exe'),
    ...candidatesIn([`@oven/bun-${process.platform}-${ARCH}`], 'bin/bun'),
  ]);
}

export function deno() {
  return firstRunnable('deno', [
    ...candidatesIn(['deno'], 'deno'),
    ...candidatesIn(
      [`@deno/${process.platform}-${process.arch}-glibc`, `@deno/${process.platform}-${process.arch}`],
      'deno',
    ),
  ]);
}

export function workerd() {
  const platform = `${process.platform}-${process.arch === 'x64' ? '64' : process.arch}`;
  return firstRunnable('workerd', [
    ...candidatesIn(['workerd'], 'bin/workerd'),
    ...candidatesIn([`@cloudflare/workerd-${platform}`], 'bin/workerd'),
  ]);
}

/**
 * Node 18, 22 or 24 from node-versions/ (its own lockfile, outside the workspaces: see its package.json),
 * installed there with `npm ci` on first use.
 */
export function node(major) {
  const binary = join(NODE_VERSIONS_DIR, 'node_modules', `node${major}`, 'bin', 'node');
  return installNodeVersions().then(() => firstRunnable(`node${major}`, [binary]));
}

let installing;
/**
 * One `npm ci` in node-versions/ for every version, when one is missing; with `background`, at a lower
 * priority than this process (see prepare.mjs).
 */
export function installNodeVersions({ background = false } = {}) {
  const missing = [18, 22, 24].some(
    (major) => !existsSync(join(NODE_VERSIONS_DIR, 'node_modules', `node${major}`, 'bin', 'node')),
  );
  if (!missing) return Promise.resolve();
  if (installing === undefined) {
    installing = run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: NODE_VERSIONS_DIR,
      timeout: 300_000,
    });
    if (background) lowerPriority(installing.child.pid);
    // Once failed, the next call tries again.
    installing.catch(() => {
      installing = undefined;
    });
  }
  return installing;
}

/** The Node running this process (the project's own, Node 20 in CI). */
export async function hostNode() {
  return { path: process.execPath, version: process.version };
}
