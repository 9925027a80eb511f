// `npm start` and `npm run sandbox` build the service only when dist/ is older than what it is built from
// (scripts/build-if-stale.mjs; the rule itself is tested in packages/packaging/test/stale.test.ts).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// `npm test` builds everything before the tests run: a start right after must not build again, or it
// would empty dist/ under a sandbox already running from it.
it('finds the service current after the build', () => {
  const script = fileURLToPath(new URL('../scripts/build-if-stale.mjs', import.meta.url));
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
