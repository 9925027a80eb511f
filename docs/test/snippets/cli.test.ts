import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createApp } from '../../snippets/quickstart/express';
import { docsDir } from '../support/paths';

const run = promisify(execFile);
const snippets = path.join(docsDir, 'snippets', 'quickstart');
const script = readFileSync(path.join(snippets, 'send-test-delivery.sh'), 'utf8');
// The secret the page tells the reader to export; the receiver must be configured with the same one.
const secret = /SVC_WEBHOOK_SECRET='([^']+)'/.exec(script)?.[1] ?? '';

/** The `svc-webhooks` executable, from the package's own `bin` field, as npm links it. */
function cliPath(): string {
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('@svc-kit/webhooks/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: Record<string, string> };
  return path.join(path.dirname(manifestPath), manifest.bin['svc-webhooks'] ?? '');
}

let url: string;
let close: () => void;
let workDir: string;

beforeAll(async () => {
  const server = createApp(secret).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
  workDir = mkdtempSync(path.join(tmpdir(), 'svc-docs-cli-'));
  copyFileSync(path.join(snippets, 'event.json'), path.join(workDir, 'event.json'));
});

afterAll(() => {
  close();
  rmSync(workDir, { recursive: true, force: true });
});

it('the quickstart command line delivers a signed event.json that the Express receiver accepts', async () => {
  expect(secret).not.toBe('');
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  // `npx --no svc-webhooks` resolves to the package's bin, as it does in a project that installed it (`--no`:
  // never a download of that name from the registry); only the port differs from the page, so that the test
  // never depends on port 3000 being free.
  const shell = [
    'set -euo pipefail',
    'npx() { [ "$1 $2" = "--no svc-webhooks" ] || { echo "unexpected: npx $*" >&2; return 1; }; shift 2; node "$SVC_WEBHOOKS_CLI" "$@"; }',
    script.replaceAll('http://localhost:3000', url),
  ].join('\n');

  const { stdout } = await run('bash', ['-c', shell], {
    cwd: workDir,
    env: { ...process.env, SVC_WEBHOOKS_CLI: cliPath() },
  });

  expect(JSON.parse(stdout)).toEqual({ received: true });
  expect(log).toHaveBeenCalledWith('message in thread thr_01J9Z3V7A1B2C3D4E5F6G7H8J9 for support-bot');
  log.mockRestore();
});
