#!/usr/bin/env node
// The package's `bin` points here rather than into dist/ so that npm links the command at install time in
// this repository too, where dist/ is only built afterwards; the CLI itself is dist/cli/main.js.
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('svc-webhooks: the CLI is not built yet; run "npm run build" first.\n');
  process.exit(3);
}
await import(main.href);
