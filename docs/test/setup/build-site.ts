import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { distDir, docsDir } from '../support/paths';

const repoDir = path.resolve(docsDir, '..');

/** Folders and files whose change means the built site is out of date. */
const INPUTS = [
  ...['guide', 'public', 'snippets', 'recipes', 'scripts', '.vitepress'].map((dir) =>
    path.join(docsDir, dir),
  ),
  path.join(docsDir, 'index.md'),
  path.join(repoDir, 'packages', 'webhooks', 'EVENTS.md'),
  // The quickstart page includes the SDK's example files.
  path.join(repoDir, 'packages', 'webhooks', 'examples'),
  ...['webhooks', 'contract', 'client', 'mock'].flatMap((pkg) => [
    path.join(repoDir, 'packages', pkg, 'src'),
    path.join(repoDir, 'packages', pkg, 'package.json'),
  ]),
];
const SKIP = new Set(['node_modules', 'dist', 'cache']);

function newestChange(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(target)) {
    if (SKIP.has(entry)) continue;
    newest = Math.max(newest, newestChange(path.join(target, entry)));
  }
  return newest;
}

/**
 * `npm test` builds the site before the tests run (the root `build` script includes this workspace), so
 * this normally only checks. Run on its own (`npx vitest run --project docs`), it builds a missing or
 * stale site first, so the browser never tests pages older than their sources.
 */
export default function buildSite(): void {
  const marker = path.join(distDir, 'index.html');
  const builtAt = existsSync(marker) ? statSync(marker).mtimeMs : 0;
  const changedAt = Math.max(...INPUTS.map(newestChange));
  if (builtAt > changedAt) return;
  execFileSync('npm', ['run', 'build'], { cwd: docsDir, stdio: 'inherit' });
}
