#!/usr/bin/env node
// `node packages/packaging/build-if-stale.mjs <folder of packages/>…`: builds only the packages whose
// build is missing or older than their sources, in the order given (a package after its dependencies).
// `npm start`, the sandbox commands and `npm run pack:local` call it: a full build of the packages takes
// about 20 s, which made every sandbox command of the quickstart take as long.
import { spawnSync } from 'node:child_process';
import { packageDir } from './src/pack.mjs';
import { staleReason } from './src/stale.mjs';

for (const name of process.argv.slice(2)) {
  const reason = staleReason(packageDir(name));
  if (reason === undefined) continue;
  process.stderr.write(`build-if-stale: building packages/${name} (${reason})\n`);
  const built = spawnSync('npm', ['run', 'build', '--silent'], {
    cwd: packageDir(name),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (built.status !== 0) {
    process.stderr.write(`build-if-stale: the build of packages/${name} failed\n`);
    process.exit(built.status ?? 1);
  }
}
