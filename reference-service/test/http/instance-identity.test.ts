import { operations } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { verifyCard } from '../../src/peer/card.js';
import { ensureIdentityKey } from '../../src/peer/own-identity.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import { BACKENDS } from '../support/backends.js';
import {
  call,
  createTenant,
  expectRefusal,
  startTestService,
  type Tenant,
  type TestService,
} from '../support/harness.js';
import { rawCall } from '../support/raw-call.js';
import { useStore } from '../support/service-lifecycle.js';

const WEBHOOKS = '/v1/workspace/webhooks';
const HOOK = { url: 'https://hooks.example.com/h', events: ['message.received'] };

/** Every header a proxy, or an attacker talking to the service directly, can use to name another host. */
const SPOOFED_HOST = {
  host: 'evil.example',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'https',
  'x-forwarded-port': '443',
  forwarded: 'for=203.0.113.9;host=evil.example;proto=https',
};

describe.each(BACKENDS)('the instance’s identity comes from configuration, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let tenant: Tenant;

  beforeAll(async () => {
    service = await startTestService(store);
    tenant = await createTenant(service.ctx);
  });
  afterAll(async () => {
    await service?.close();
  });

  it('signs cards naming its own endpoint, whatever Host or forwarded headers say', async () => {
    const identityId = newId('idn');
    await insertIdentity(store.db, {
      id: identityId,
      workspace_id: tenant.workspaceId,
      slug: `spoof-${identityId.slice(-6)}`,
      created_at: service.ctx.now(),
    });
    const { fingerprint } = await ensureIdentityKey(
      store.db,
      service.ctx.secretBox,
      identityId,
      service.ctx.now(),
    );
    const path = `/peer/v1/identities/${fingerprint}/card`;
    for (const headers of [SPOOFED_HOST, { host: 'evil.example' }, { forwarded: 'host=evil.example' }, {}]) {
      const answer = await rawCall(service.baseUrl, 'GET', path, { headers });
      expect(answer.status).toBe(200);
      const card = verifyCard((answer.body as { card: string }).card, Date.now());
      expect(typeof card === 'string' ? card : card.endpoint).toBe(`${service.baseUrl}/peer/v1`);
    }
  });

  it('judges same-origin against the configured origin, never the request’s Host', async () => {
    const cookie = tenant.steppedUpSession;
    // The attack: Host and Origin agree with each other, but not with the service.
    const attack = await rawCall(service.baseUrl, 'POST', WEBHOOKS, {
      headers: { ...SPOOFED_HOST, cookie, origin: 'http://evil.example' },
      body: HOOK,
    });
    expect(attack.status).toBe(403);
    expect(attack.body).toMatchObject({ error: { code: 'cross_site' } });
    const https = await rawCall(service.baseUrl, 'POST', WEBHOOKS, {
      headers: { ...SPOOFED_HOST, cookie, origin: 'https://evil.example' },
      body: HOOK,
    });
    expect(https.status).toBe(403);
    // The real origin passes even when Host lies.
    const own = await rawCall(service.baseUrl, 'POST', WEBHOOKS, {
      headers: { ...SPOOFED_HOST, cookie, origin: new URL(service.baseUrl).origin },
      body: HOOK,
    });
    expect(own.status).toBe(201);
  });
});

describe.each(BACKENDS)('the cross-site rule for session calls, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let tenant: Tenant;
  let endpointId: string;

  beforeAll(async () => {
    service = await startTestService(store);
    tenant = await createTenant(service.ctx);
    // createWebhook needs a step-up, so a session (the harness shows the service's origin).
    const bySession = await call(service, 'POST', WEBHOOKS, {
      auth: { cookie: tenant.steppedUpSession },
      body: HOOK,
    });
    endpointId = operations.createWebhook.success.schema.parse(bySession.body).endpoint.id;
  });
  afterAll(async () => {
    await service?.close();
  });

  const endpointRow = async () =>
    (await store.db.query('SELECT status, updated_at FROM webhook_endpoints WHERE id = $1', [endpointId]))[0];

  it('refuses a state change that shows no origin, or only a Referer, and changes nothing', async () => {
    const auth = { cookie: tenant.steppedUpSession };
    const before = await endpointRow();
    const own = service.baseUrl;
    for (const headers of [
      {},
      { referer: 'https://evil.example/page' },
      { referer: `${own}/portal` },
      { 'sec-fetch-site': 'none' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site', origin: new URL(own).origin },
      { origin: 'null' },
    ]) {
      const patch = await call(service, 'PATCH', `${WEBHOOKS}/${endpointId}`, {
        auth,
        body: { status: 'paused' },
        headers,
        showOrigin: false,
      });
      expectRefusal(patch, 403, 'cross_site');
      expectRefusal(
        await call(service, 'POST', WEBHOOKS, { auth, body: HOOK, headers, showOrigin: false }),
        403,
        'cross_site',
      );
    }
    expect(await endpointRow()).toEqual(before);
    const count = await store.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1',
      [tenant.workspaceId],
    );
    expect(count[0]!.n).toBe(1);
  });

  it('accepts a state change shown same-origin by Origin or by Sec-Fetch-Site', async () => {
    const auth = { cookie: tenant.steppedUpSession };
    const path = `${WEBHOOKS}/${endpointId}`;
    const byOrigin = await call(service, 'PATCH', path, {
      auth,
      body: { status: 'paused' },
      headers: { origin: new URL(service.baseUrl).origin },
    });
    expect(byOrigin.status).toBe(200);
    const byFetchSite = await call(service, 'PATCH', path, {
      auth,
      body: { status: 'active' },
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(byFetchSite.status).toBe(200);
    // Reads need no proof, and key calls are never checked.
    expect((await call(service, 'GET', WEBHOOKS, { auth, showOrigin: false })).status).toBe(200);
    const byKey = await call(service, 'PATCH', path, {
      auth: { key: tenant.key },
      body: { status: 'active' },
    });
    expect(byKey.status).toBe(200);
  });

  it('lets a program log in without browser headers, but not a form posted from another site', async () => {
    const login = { email: tenant.email, password: tenant.password };
    expect((await call(service, 'POST', '/v1/sessions', { body: login })).status).toBe(201);
    expectRefusal(
      await call(service, 'POST', '/v1/sessions', {
        body: login,
        headers: { origin: 'https://evil.example' },
      }),
      403,
      'cross_site',
    );
  });
});
