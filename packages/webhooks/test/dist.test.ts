// The built package, loaded the way users load it: by name, through Node's own resolution, in ESM and CJS,
// with and without the conditions that select the Web build. `npm test` builds before it runs the tests.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const dist = (file: string) => fileURLToPath(new URL(`../dist/${file}`, import.meta.url));

// Signs a delivery with the build it loaded and verifies it (the synchronous way too, which both builds
// have), then reports which file the resolution picked.
const PROBE = `
  const body = JSON.stringify({ id: 'evt_1', type: 'message.received', created_at: 1, identity: 'i',
    data: { thread_id: 't', contact: 'sha256:' + '0'.repeat(64) } });
  const headers = await m.createTestHeaders(body, { secret: 'k' });
  const event = await m.verifyAsync(body, headers, { secret: 'k' });
  const refused = await m.safeVerifyAsync(JSON.parse(body), headers, { secret: 'k' });
  console.log(JSON.stringify({
    build: /index.web.c?js$/.test(resolved) ? 'web' : 'node',
    sync: m.safeVerify(body, headers, { secret: 'k' }).ok && m.sign(body, { secret: 'k', timestamp: 1 }),
    verified: event.id,
    reason: refused.error.reason,
    isError: refused.error instanceof m.WebhookVerificationError,
  }));
`;

function run(args: string[], code: string): Record<string, unknown> {
  const out = execFileSync(process.execPath, [...args, '-e', code], { cwd: packageDir, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

const esm = (specifier: string, conditions: string[] = []) =>
  run(
    [...conditions, '--input-type=module'],
    `import * as m from '${specifier}'; const resolved = import.meta.resolve('${specifier}'); ${PROBE}`,
  );
const cjs = (specifier: string, conditions: string[] = []) =>
  run(
    [...conditions, '--input-type=commonjs'],
    `const m = require('${specifier}'); const resolved = require.resolve('${specifier}'); (async () => { ${PROBE} })();`,
  );

describe('the built package', () => {
  it('has been built (run npm run build first)', () => {
    for (const file of [
      'index.node.js',
      'index.node.cjs',
      'index.web.js',
      'index.web.cjs',
      'index.node.d.ts',
    ]) {
      expect(existsSync(dist(file)), file).toBe(true);
    }
  });

  // The body's signature under 'k' at t=1 (from node:crypto), which both builds' sign must give.
  const SYNC = 't=1,v1=3bc1d653fae5054ca7a0ad982201e594b26c4190edb1d6455c908b9dcb7dd688';
  const expectations = { sync: SYNC, verified: 'evt_1', reason: 'body_was_parsed', isError: true };

  it('gives Node the Node build, in ESM and CJS', () => {
    expect(esm('@svc-kit/webhooks')).toEqual({ build: 'node', ...expectations });
    expect(cjs('@svc-kit/webhooks')).toEqual({ build: 'node', ...expectations });
  });

  it.each(['worker', 'workerd', 'edge-light', 'browser', 'deno'])(
    'gives the Web build under the %s condition, in ESM and CJS',
    (condition) => {
      const flag = [`--conditions=${condition}`];
      expect(esm('@svc-kit/webhooks', flag)).toEqual({ build: 'web', ...expectations });
      expect(cjs('@svc-kit/webhooks', flag)).toEqual({ build: 'web', ...expectations });
    },
  );

  it('gives the Web build through ./web on Node too', () => {
    expect(esm('@svc-kit/webhooks/web')).toEqual({ build: 'web', ...expectations });
    expect(cjs('@svc-kit/webhooks/web')).toEqual({ build: 'web', ...expectations });
  });

  it('recognises its errors across the ESM and CJS copies', () => {
    const code = `
      import { createRequire } from 'node:module';
      import * as esm from '@svc-kit/webhooks';
      const cjs = createRequire(process.cwd() + '/')('@svc-kit/webhooks');
      const fromCjs = cjs.safeVerify({}, {}, { secret: 'k' }).error;
      console.log(JSON.stringify({
        distinctClasses: esm.WebhookVerificationError !== cjs.WebhookVerificationError,
        instanceOf: fromCjs instanceof esm.WebhookVerificationError,
        guard: esm.isWebhookVerificationError(fromCjs),
      }));`;
    expect(run(['--input-type=module'], code)).toEqual({
      distinctClasses: true,
      instanceOf: true,
      guard: true,
    });
  });

  it.each(['index.web.js', 'index.web.cjs'])('keeps %s free of Node-only code', (file) => {
    const text = readFileSync(dist(file), 'utf8');
    expect(text).not.toMatch(/["'`]node:/);
    expect(text).not.toMatch(/require\(["'](crypto|buffer|fs|path|util|stream)["']\)/);
    expect(text).not.toMatch(/from ["'](crypto|buffer|fs|path|util|stream)["']/);
    expect(text).not.toMatch(/\bBuffer\b/);
    expect(text).not.toMatch(/\bprocess\./);
  });
});
