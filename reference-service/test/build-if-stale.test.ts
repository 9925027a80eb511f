// `npm start` and `npm run sandbox` build the service only when dist/ is older than what it is built from
// (scripts/build-if-stale.mjs; the rule itself is tested in packages/packaging/test/stale.test.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';

// `npm test` builds everything before the tests run: a start right after must not build again, or it
// would empty dist/ under a sandbox already running from it.
it('finds the service current after the build', () => {
  expect(execFileSync(process.execPath, [script, '--dry-run'], { encoding: 'utf8' })).toBe('current\n');
});

// A sandbox command is run beside the sandbox it talks to: building unconditionally (tsup empties dist/
// first) would rewrite the running service's files under it.
it('builds only what is stale before a start or a sandbox command', async () => {
  const { scripts } = (await import('../package.json', { with: { type: 'json' } })).default as {
    scripts: Record<string, string>;
  };
  for (const name of ['start', 'sandbox']) {
    expect(scripts[name]).toContain('node scripts/build-if-stale.mjs &&');
    expect(scripts[name]).not.toMatch(/\btsup\b|npm run build(?![:\w])/);
  }
});

/**
 * The script in a tree of its own (the service's folder and the rule it imports), whose dist/ is missing
 * and whose `npm run build` prints on stdout, as tsup and Vite do.
 */
function fakeService(): { dir: string; run(env?: Record<string, string>): Ran } {
  const root = mkdtempSync(join(tmpdir(), 'svc-build-if-stale-'));
  const dir = join(root, 'reference-service');
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  mkdirSync(join(root, 'packages/packaging/src'), { recursive: true });
  copyFileSync(script, join(dir, 'scripts/build-if-stale.mjs'));
  copyFileSync(
    fileURLToPath(new URL('../../packages/packaging/src/stale.mjs', import.meta.url)),
    join(root, 'packages/packaging/src/stale.mjs'),
  );
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ scripts: { build: 'echo built-on-stdout && touch built' } }),
  );
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return {
    dir,
    run(env = {}) {
      const { status, stdout, stderr } = spawnSync(
        process.execPath,
        [join(dir, 'scripts/build-if-stale.mjs')],
        {
          env: { ...process.env, ...env, DATABASE_URL: '' },
          encoding: 'utf8',
        },
      );
      return { code: status, stdout, stderr };
    },
  };
}

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

const script = fileURLToPath(new URL('../scripts/build-if-stale.mjs', import.meta.url));
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

it("builds a stale service with the build's output on stderr, leaving stdout to the command", async () => {
  const service = fakeService();
  const result = service.run();
  expect(result).toMatchObject({ code: 0, stdout: '' });
  expect(result.stderr).toContain('building the reference service (');
  expect(result.stderr).toContain('built-on-stdout');
  expect(existsSync(join(service.dir, 'built'))).toBe(true);
});

it('does not rebuild a stale service under one running from it, on the data dir of the setting', async () => {
  const service = fakeService();
  const dataDir = join(service.dir, 'elsewhere');
  mkdirSync(dataDir);
  const admin = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => admin.listen(join(dataDir, 'admin.sock'), resolve));
  try {
    const result = service.run({ SVC_DATA_DIR: dataDir });
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toContain('a service is running from it: not rebuilt under it');
    expect(existsSync(join(service.dir, 'built'))).toBe(false);
    // The default data dir has no service: there it builds.
    expect(service.run().stderr).toContain('building the reference service (');
    expect(existsSync(join(service.dir, 'built'))).toBe(true);
  } finally {
    await new Promise((resolve) => admin.close(resolve));
  }
});
