#!/usr/bin/env node
// The build step of `npm start` and `npm run sandbox`: builds the service (its bundle and the portal) only
// when dist/ is missing or older than what it is built from (`--dry-run` only says which). A start or a
// sandbox command on an unchanged checkout then runs at once, and neither a second `npm start` (refused)
// nor a sandbox command rewrites the dist/ of a sandbox that is running.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { staleAgainst } from '../../packages/packaging/src/stale.mjs';

/** @param {string} path relative to the service's folder */
const here = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));

const reason = staleAgainst(
  ['dist/main.js', 'dist/sandbox.js', 'dist/pglite-thread.js', 'dist/portal/index.html'].map(here),
  [
    'src',
    'portal',
    'runtime-files.ts',
    'tsup.config.ts',
    'tsconfig.json',
    'package.json',
    // The portal bundles the client and the contract; the lockfile moves with every dependency.
    '../packages/webhooks/dist',
    '../packages/contract/dist',
    '../packages/client/dist',
    '../package-lock.json',
  ].map(here),
);
if (process.argv.includes('--dry-run')) {
  process.stdout.write(reason === undefined ? 'current\n' : `stale: ${reason}\n`);
} else if (reason !== undefined) {
  process.stderr.write(`build-if-stale: building the reference service (${reason})\n`);
  const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: here('.'), stdio: 'inherit' });
  process.exit(built.status ?? 1);
}
