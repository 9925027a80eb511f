import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { call, createTenant, startTestService, type TestService } from '../support/harness.js';

const WEBHOOKS = '/v1/workspace/webhooks';

// The portal's live delivery log polls with If-None-Match: an unchanged answer must be a bodyless 304,
// a changed one a full 200 with a new tag.
describe('conditional GET on /v1 reads', () => {
  let store: OpenedStore;
  let service: TestService;

  beforeAll(async () => {
    store = await openStore({ inMemory: true, dataDir: '/nonexistent' });
    service = await startTestService(store);
  });
  afterAll(async () => {
    await service?.close();
    await store?.close();
  });

  it('tags a 200, answers 304 without a body to the same tag, and a new tag once the answer changes', async () => {
    const tenant = await createTenant(service.ctx);
    const auth = { key: tenant.key };
    const first = await call(service, 'GET', WEBHOOKS, { auth });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');

    const same = await call(service, 'GET', WEBHOOKS, {
      auth,
      headers: { 'if-none-match': `W/${etag}, "other"` },
    });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.get('etag')).toBe(etag);

    const created = await call(service, 'POST', WEBHOOKS, {
      auth: { cookie: tenant.steppedUpSession },
      body: { url: 'https://hooks.example.com/in' },
    });
    expect(created.status).toBe(201);
    const changed = await call(service, 'GET', WEBHOOKS, { auth, headers: { 'if-none-match': etag ?? '' } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('never tags a refusal or a state change', async () => {
    const refused = await call(service, 'GET', WEBHOOKS, { headers: { 'if-none-match': '*' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('etag')).toBeNull();
    const tenant = await createTenant(service.ctx);
    const created = await call(service, 'POST', WEBHOOKS, {
      auth: { cookie: tenant.steppedUpSession },
      body: { url: 'https://hooks.example.com/in' },
      headers: { 'if-none-match': '*' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBeNull();
  });
});
