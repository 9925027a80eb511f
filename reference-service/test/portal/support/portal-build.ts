import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const SERVICE = fileURLToPath(new URL('../../../', import.meta.url));
const ROOT = join(SERVICE, '..');
const CONFIG = join(SERVICE, 'portal/vite.config.ts');
/** What `npm run build` (which CI runs before the tests) leaves: reused when no source is newer. */
const DIST = join(SERVICE, 'dist/portal');
/** Earlier test builds, one folder per hash of their sources, so an unchanged portal is never rebuilt. */
const CACHE = join(SERVICE, 'node_modules/.cache/svc-portal');

/**
 * Everything the bundle is made from: the portal's own files, the built workspace packages it imports, and
 * the modules of the service it shares (the password rules it states and checks, the codes of why an
 * attempt got no answer).
 */
const SOURCES = ['reference-service/portal', 'packages/client/dist', 'packages/contract/dist'];
const SHARED_FILES = [
  'reference-service/src/features/accounts/password-policy.ts',
  'reference-service/src/domain/no-answer-reasons.ts',
];

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

async function sourceFiles(): Promise<string[]> {
  const lists = await Promise.all(SOURCES.map((dir) => files(join(ROOT, dir))));
  return [...lists.flat(), ...SHARED_FILES.map((file) => join(ROOT, file))];
}

async function newestChange(paths: string[]): Promise<number> {
  const times = await Promise.all(paths.map(async (path) => (await stat(path)).mtimeMs));
  return Math.max(...times);
}

async function sourceHash(paths: string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const path of paths) hash.update(`${relative(ROOT, path)}\n`).update(await readFile(path));
  return hash.digest('hex').slice(0, 16);
}

/**
 * The folder of a portal build that matches the sources now: dist/portal when it is newer than every
 * source, else a cached test build of these exact sources, else a new build into the cache. Called once
 * per test run, by the global set-up (test/portal/global-setup.ts), never by a test file: a Vite build
 * takes seconds of a CPU the browser tests need.
 */
export async function portalBuildFor(): Promise<{ dir: string; how: 'dist' | 'cache' | 'built' }> {
  const sources = await sourceFiles();
  const index = join(DIST, 'index.html');
  if (existsSync(index) && (await stat(index)).mtimeMs >= (await newestChange(sources)))
    return { dir: DIST, how: 'dist' };
  const dir = join(CACHE, await sourceHash(sources));
  if (existsSync(join(dir, 'index.html'))) return { dir, how: 'cache' };
  // Built beside, then renamed: a build that dies half-way never passes for a finished one.
  const partial = `${dir}.partial-${process.pid}`;
  await build({ configFile: CONFIG, logLevel: 'error', build: { outDir: partial, emptyOutDir: true } });
  await rm(dir, { recursive: true, force: true });
  await rename(partial, dir);
  return { dir, how: 'built' };
}
