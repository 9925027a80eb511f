import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// These tests read the build (`npm run build -w @svc-kit/client` runs before the tests in `npm test`).
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const dist = (file: string) => fileURLToPath(new URL(`../dist/${file}`, import.meta.url));

// Runs in a separate Node process, so that the package is resolved through its `exports` map exactly as
// an installed copy would be, and exercised against a real HTTP server on loopback.
const script = `
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
const require = createRequire(process.cwd() + '/');
const esm = await import('@svc-kit/client');
const cjs = require('@svc-kit/client');
const server = createServer((req, res) => {
  if (req.url === '/v1/workspace/webhooks') {
    res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_dist' });
    res.end(JSON.stringify({ endpoints: [], events: [], enabled: true, auth: req.headers.authorization }));
  } else {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'not_found', message: 'no such endpoint', request_id: 'req_nf' } }));
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = 'http://127.0.0.1:' + server.address().port;
const out = {};
for (const [name, mod] of [['esm', esm], ['cjs', cjs]]) {
  const client = new mod.Client({ apiKey: 'svc_k_s', baseUrl, maxRetries: 0 });
  const { data, requestId } = await client.webhooks.list().withResponse();
  const refused = await client.webhooks.delete('missing').catch((e) => e);
  out[name] = { auth: data.auth, requestId, refusedName: refused.name, refusedIsOwn: refused instanceof mod.NotFoundError };
}
const fromCjs = await new cjs.Client({ apiKey: 'svc_k_s', baseUrl, maxRetries: 0 }).webhooks.delete('x').catch((e) => e);
out.cross = {
  distinctCopies: esm.Client !== cjs.Client,
  notFound: fromCjs instanceof esm.NotFoundError,
  apiError: fromCjs instanceof esm.APIError,
  serviceError: fromCjs instanceof esm.ServiceError,
  rateLimit: fromCjs instanceof esm.RateLimitError,
  plainObject: ({}) instanceof esm.APIError,
};
server.close();
console.log(JSON.stringify(out));
`;

describe('the built package', () => {
  it('exists', () => {
    for (const file of ['index.js', 'index.cjs', 'index.d.ts', 'index.d.cts'])
      expect(existsSync(dist(file))).toBe(true);
  });

  it('imports nothing from Node (runs on browsers, Deno, Bun and edge runtimes)', () => {
    for (const file of ['index.js', 'index.cjs']) {
      const code = readFileSync(dist(file), 'utf8');
      expect(code).not.toMatch(/["']node:/);
      expect(code).not.toMatch(/\bprocess\.|\bBuffer\b|__dirname/);
    }
  });

  it('works from ESM and CommonJS, and errors of one copy are instanceof the other’s classes', () => {
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: packageDir,
      encoding: 'utf8',
    });
    const result = JSON.parse(output);
    for (const format of ['esm', 'cjs']) {
      expect(result[format]).toEqual({
        auth: 'Bearer svc_k_s',
        requestId: 'req_dist',
        refusedName: 'NotFoundError',
        refusedIsOwn: true,
      });
    }
    expect(result.cross).toEqual({
      distinctCopies: true,
      notFound: true,
      apiError: true,
      serviceError: true,
      rateLimit: false,
      plainObject: false,
    });
  });
});
