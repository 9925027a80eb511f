import { describe, expect, it } from 'vitest';
import { call, createTenant } from '../support/harness.js';
import { serviceForTests } from '../support/service-lifecycle.js';

const WEBHOOKS = '/v1/workspace/webhooks';

// The portal's live delivery log polls with If-None-Match: an unchanged answer must be a bodyless 304,
// a changed one a full 200 with a new tag.
describe('conditional GET on /v1 reads', () => {
  const running = serviceForTests();

  it('tags a 200, answers 304 without a body to the same tag, and a new tag once the answer changes', async () => {
    const tenant = await createTenant(running.service.ctx);
    const auth = { key: tenant.key };
    const first = await call(running.service, 'GET', WEBHOOKS, { auth });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(first.headers.get('cache-control')).toBe('private, no-cache');
    // Serialised from the contract's schema, with the type Fastify gives JSON.
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(JSON.parse(first.text)).toMatchObject({ endpoints: [], enabled: false });

    const same = await call(running.service, 'GET', WEBHOOKS, {
      auth,
      headers: { 'if-none-match': `W/${etag}, "other"` },
    });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.get('content-length')).toBeNull();
    expect(same.headers.get('etag')).toBe(etag);

    const created = await call(running.service, 'POST', WEBHOOKS, {
      auth: { cookie: tenant.steppedUpSession },
      body: { url: 'https://hooks.example.com/in' },
    });
    expect(created.status).toBe(201);
    const changed = await call(running.service, 'GET', WEBHOOKS, {
      auth,
      headers: { 'if-none-match': etag ?? '' },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);

    // The delivery log, also written by the database, is tagged and typed the same way.
    const log = `${WEBHOOKS}/${(created.body as { endpoint: { id: string } }).endpoint.id}/deliveries?limit=10`;
    const deliveries = await call(running.service, 'GET', log, { auth });
    expect(deliveries.status).toBe(200);
    expect(deliveries.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(deliveries.text).toBe('{"deliveries":[]}');
    const unchanged = await call(running.service, 'GET', log, {
      auth,
      headers: { 'if-none-match': deliveries.headers.get('etag') ?? '' },
    });
    expect(unchanged.status).toBe(304);
  });

  it('never tags a refusal or a state change', async () => {
    const refused = await call(running.service, 'GET', WEBHOOKS, { headers: { 'if-none-match': '*' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('etag')).toBeNull();
    const tenant = await createTenant(running.service.ctx);
    const created = await call(running.service, 'POST', WEBHOOKS, {
      auth: { cookie: tenant.steppedUpSession },
      body: { url: 'https://hooks.example.com/in' },
      headers: { 'if-none-match': '*' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBeNull();
  });
});
