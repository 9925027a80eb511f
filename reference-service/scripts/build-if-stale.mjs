#!/usr/bin/env node
// The build step of `npm start` and `npm run sandbox`: builds the service (its bundle and the portal) only
// when dist/ is missing or older than what it is built from (`--dry-run` only says which). A start or a
// sandbox command on an unchanged checkout then runs at once. A stale dist/ is not rebuilt while a service
// on the embedded database runs from it (its admin socket answers): the build empties dist/ first, and the
// running portal's assets would go with it. The build's output goes to stderr, so that a sandbox command's
// stdout stays what the command printed (`KEY=$(npm run -s sandbox -- mint-key)`).
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleAgainst } from '../../packages/packaging/src/stale.mjs';

/** @param {string} path relative to the service's folder */
const here = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));

/** Whether a service answers on the data dir's admin socket (src/features/sandbox/admin-socket.ts). */
function serviceRunning() {
  if (process.env.DATABASE_URL) return Promise.resolve(false);
  const dataDir = resolve(process.env.SVC_DATA_DIR ?? here('.data'));
  return new Promise((answer) => {
    const socket = connect(join(dataDir, 'admin.sock'));
    socket.once('connect', () => {
      socket.destroy();
      answer(true);
    });
    socket.once('error', () => answer(false));
  });
}

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
} else if (reason !== undefined && (await serviceRunning())) {
  process.stderr.write(
    `build-if-stale: the reference service's build is stale (${reason}), but a service is running from it: not rebuilt under it (stop it, then run this again to rebuild)\n`,
  );
} else if (reason !== undefined) {
  process.stderr.write(`build-if-stale: building the reference service (${reason})\n`);
  const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: here('.'), stdio: ['ignore', 2, 2] });
  process.exit(built.status ?? 1);
}
