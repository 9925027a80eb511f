import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PORTAL_CSP } from '../../src/features/portal-static/plugin.js';
import { ANSWER_HEADERS } from '../../src/http/answer-headers.js';
import { startTestService, type TestService } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';

function expectPortalHeaders(response: Response): void {
  expect(response.headers.get('content-security-policy')).toBe(PORTAL_CSP);
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  expect(response.headers.get('referrer-policy')).toBe('no-referrer');
}

describe('the portal served at /', () => {
  const store = useStore();
  let built: TestService;
  let unbuilt: TestService;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-portal-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(
      join(dir, 'index.html'),
      '<!doctype html><script type="module" src="/assets/app-1a2b.js"></script>',
    );
    await writeFile(join(dir, 'assets', 'app-1a2b.js'), 'console.log("portal")');
    built = await startTestService(store, { extra: { portalDir: dir } });
    unbuilt = await startTestService(store, { extra: { portalDir: join(dir, 'missing') } });
  });
  afterAll(async () => {
    await built?.close();
    await unbuilt?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers the page and its assets with the strict CSP, nosniff and no referrer', async () => {
    const page = await fetch(`${built.baseUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expectPortalHeaders(page);
    expect(await page.text()).toContain('/assets/app-1a2b.js');
    const asset = await fetch(`${built.baseUrl}/assets/app-1a2b.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toMatch(/immutable/);
    expectPortalHeaders(asset);
    const head = await fetch(`${built.baseUrl}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expectPortalHeaders(head);
  });

  it('serves no other file, and leaves /v1 and unknown paths to the service', async () => {
    for (const path of ['/assets/../../etc/passwd', '/%2e%2e/package.json', '/nope.js', '/assets/']) {
      const response = await fetch(`${built.baseUrl}${path}`);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
    const session = await fetch(`${built.baseUrl}/v1/session`);
    expect(session.status).toBe(401);
    // The service's own answers keep their policy, not the portal's.
    expect(session.headers.get('content-security-policy')).toBe(ANSWER_HEADERS['content-security-policy']);
  });

  it('says how to build the portal when it is not built, never a 500', async () => {
    const page = await fetch(`${unbuilt.baseUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/plain/);
    expectPortalHeaders(page);
    expect(await page.text()).toMatch(/not built[\s\S]*npm run build -w @svc-kit\/reference-service/);
  });
});
