#!/usr/bin/env node
// The package's `bin` points here rather than into dist/ so that npm links the command at install time in
// this repository too, where dist/ is only built afterwards; the CLI itself is dist/cli/main.js.
try {
  await import('../dist/cli/main.js');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/cli/main.js'))
    throw error;
  process.stderr.write('svc-webhooks: the CLI is not built yet; run "npm run build" first.\n');
  process.exitCode = 3;
}
