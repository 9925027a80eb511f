import { buildOpenApiDocument, defineOperation, type Operation, operations } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/domain/totp.js';
import { SESSION_COOKIE } from '../../src/http/principal.js';
import { BACKENDS } from '../support/backends.js';
import {
  call,
  createTenant,
  expectRefusal,
  startTestService,
  TEST_PASSWORD,
  type TestService,
} from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';

const WEBHOOKS = '/v1/workspace/webhooks';
const HOOK = { url: 'https://hooks.example.com/in' };

describe.each(BACKENDS)('authentication and policy on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(store);
  });
  afterAll(async () => {
    await service?.close();
  });

  it('answers 401 without any credential', async () => {
    expectRefusal(await call(service, 'GET', WEBHOOKS), 401, 'unauthenticated');
    expectRefusal(await call(service, 'POST', WEBHOOKS, { body: HOOK }), 401, 'unauthenticated');
  });

  it('answers malformed, unknown and revoked keys, and a removed member’s, identically', async () => {
    const tenant = await createTenant(service.ctx);
    const [, id, secret] = /^svc_([0-9a-f]+)_([0-9a-f]+)$/.exec(tenant.key)!;
    const revoked = await createTenant(service.ctx);
    await store.db.query('UPDATE api_keys SET revoked_at = $1 WHERE workspace_id = $2', [
      Date.now(),
      revoked.workspaceId,
    ]);
    // What a key minted while its member was being removed is left as: the member gone, the key live.
    const orphaned = await createTenant(service.ctx);
    await store.db.query('UPDATE members SET removed_at = $1 WHERE workspace_id = $2', [
      Date.now(),
      orphaned.workspaceId,
    ]);
    const variants: Record<string, string> = {
      garbage: 'Bearer nonsense',
      empty: 'Bearer ',
      basic: `Basic ${Buffer.from('a:b').toString('base64')}`,
      noScheme: tenant.key,
      upperCase: `Bearer ${tenant.key.toUpperCase()}`,
      truncated: `Bearer ${tenant.key.slice(0, -1)}`,
      unknownId: `Bearer svc_${'0'.repeat(16)}_${secret}`,
      wrongSecret: `Bearer svc_${id}_${'f'.repeat(64)}`,
      revoked: `Bearer ${revoked.key}`,
      removedMember: `Bearer ${orphaned.key}`,
    };
    const answers = [];
    for (const [name, authorization] of Object.entries(variants)) {
      const result = await call(service, 'GET', WEBHOOKS, { headers: { authorization } });
      expectRefusal(result, 401, 'unauthenticated');
      answers.push([name, (result.body as { error: { message: string } }).error.message]);
    }
    expect(new Set(answers.map(([, message]) => message)).size).toBe(1);
    // The real key works, and no key ever reaches the logs.
    expect((await call(service, 'GET', WEBHOOKS, { auth: { key: tenant.key } })).status).toBe(200);
    expect(service.logs()).not.toContain(secret);
  });

  it('answers 401 for an unknown or expired session cookie', async () => {
    expectRefusal(
      await call(service, 'GET', WEBHOOKS, { auth: { cookie: `${SESSION_COOKIE}=not-a-session` } }),
      401,
      'unauthenticated',
    );
    const tenant = await createTenant(service.ctx);
    await store.db.query('UPDATE sessions SET expires_at = 0 WHERE member_id = $1', [tenant.memberId]);
    expectRefusal(
      await call(service, 'GET', WEBHOOKS, { auth: { cookie: tenant.plainSession } }),
      401,
      'unauthenticated',
    );
  });

  it('refuses a key on a step-up operation whatever its scopes', async () => {
    const tenant = await createTenant(service.ctx);
    expectRefusal(
      await call(service, 'POST', WEBHOOKS, { auth: { key: tenant.key }, body: HOOK }),
      403,
      'step_up_required',
    );
    expectRefusal(
      await call(service, 'POST', '/v1/workspace/keys', {
        auth: { key: tenant.key },
        body: { name: 'k', scopes: ['service:workspace:admin'] },
      }),
      403,
      'step_up_required',
    );
  });

  it('refuses a session without a fresh step-up, or without MFA enrolled', async () => {
    const tenant = await createTenant(service.ctx);
    expectRefusal(
      await call(service, 'POST', WEBHOOKS, { auth: { cookie: tenant.plainSession }, body: HOOK }),
      403,
      'step_up_required',
    );
    const noMfa = await createTenant(service.ctx, { mfa: false });
    expectRefusal(
      await call(service, 'POST', WEBHOOKS, { auth: { cookie: noMfa.steppedUpSession }, body: HOOK }),
      403,
      'step_up_required',
    );
    // 16 minutes after the step-up it is stale.
    await store.db.query(
      'UPDATE sessions SET stepped_up_at = $1 WHERE member_id = $2 AND stepped_up_at IS NOT NULL',
      [Date.now() - 16 * 60 * 1000, tenant.memberId],
    );
    expectRefusal(
      await call(service, 'POST', WEBHOOKS, { auth: { cookie: tenant.steppedUpSession }, body: HOOK }),
      403,
      'step_up_required',
    );
    // 14 minutes after, it still counts.
    await store.db.query(
      'UPDATE sessions SET stepped_up_at = $1 WHERE member_id = $2 AND stepped_up_at IS NOT NULL',
      [Date.now() - 14 * 60 * 1000, tenant.memberId],
    );
    expect(
      (await call(service, 'POST', WEBHOOKS, { auth: { cookie: tenant.steppedUpSession }, body: HOOK }))
        .status,
    ).toBe(201);
  });

  it('logs in, steps up with TOTP, then creates an endpoint', async () => {
    const tenant = await createTenant(service.ctx);
    expectRefusal(
      await call(service, 'POST', '/v1/sessions', { body: { email: tenant.email, password: 'wrong' } }),
      401,
      'unauthenticated',
    );
    expectRefusal(
      await call(service, 'POST', '/v1/sessions', {
        body: { email: 'nobody@test.example', password: TEST_PASSWORD },
      }),
      401,
      'unauthenticated',
    );
    const login = await call(service, 'POST', '/v1/sessions', {
      body: { email: tenant.email, password: TEST_PASSWORD },
    });
    expect(login.status).toBe(201);
    const setCookie = login.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^__Host-svc_session=[^;]+; Path=\/; Secure; HttpOnly; SameSite=Strict/);
    const cookie = setCookie.split(';')[0]!;
    expectRefusal(
      await call(service, 'POST', WEBHOOKS, { auth: { cookie }, body: HOOK }),
      403,
      'step_up_required',
    );
    expectRefusal(
      await call(service, 'POST', '/v1/sessions/step-up', { auth: { cookie }, body: { code: '000000' } }),
      403,
      'step_up_required',
    );
    expectRefusal(
      await call(service, 'POST', '/v1/sessions/step-up', { auth: { cookie }, body: { code: 'abc' } }),
      400,
      'invalid_request',
    );
    const code = currentTotp(tenant.totpSecret!, Date.now());
    const stepped = await call(service, 'POST', '/v1/sessions/step-up', { auth: { cookie }, body: { code } });
    expect(stepped.status).toBe(200);
    expect((await call(service, 'POST', WEBHOOKS, { auth: { cookie }, body: HOOK })).status).toBe(201);
    expect(service.logs()).not.toContain(cookie.split('=')[1]!);
    expect(service.logs()).not.toContain(TEST_PASSWORD);
  });

  it('refuses cross-site state-changing session calls, and only those', async () => {
    const tenant = await createTenant(service.ctx);
    const auth = { cookie: tenant.steppedUpSession };
    for (const headers of [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'null' },
    ]) {
      expectRefusal(await call(service, 'POST', WEBHOOKS, { auth, body: HOOK, headers }), 403, 'cross_site');
    }
    const created = operations.createWebhook.success.schema.parse(
      (await call(service, 'POST', WEBHOOKS, { auth, body: HOOK, headers: { origin: service.baseUrl } }))
        .body,
    );
    for (const [method, path, body] of [
      ['PATCH', `${WEBHOOKS}/${created.endpoint.id}`, { status: 'paused' }],
      ['POST', `${WEBHOOKS}/${created.endpoint.id}/secret`, undefined],
      ['DELETE', `${WEBHOOKS}/${created.endpoint.id}`, undefined],
    ] as const) {
      expectRefusal(
        await call(service, method, path, { auth, body, headers: { 'sec-fetch-site': 'cross-site' } }),
        403,
        'cross_site',
      );
    }
    // Reads are not state changes, and a key is not an ambient credential.
    expect(
      (await call(service, 'GET', WEBHOOKS, { auth, headers: { origin: 'https://evil.example' } })).status,
    ).toBe(200);
    expect(
      (
        await call(service, 'PATCH', `${WEBHOOKS}/${created.endpoint.id}`, {
          auth: { key: tenant.key },
          body: { status: 'paused' },
          headers: { origin: 'https://evil.example' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(service, 'PATCH', `${WEBHOOKS}/${created.endpoint.id}`, {
          auth,
          body: { status: 'active' },
          headers: { 'sec-fetch-site': 'same-origin' },
        })
      ).status,
    ).toBe(200);
  });

  it('requires the permission: from the member for a session, from scopes ∩ member for a key', async () => {
    const reader = await createTenant(service.ctx, { permissions: ['service:contacts:read'] });
    expectRefusal(
      await call(service, 'GET', WEBHOOKS, { auth: { cookie: reader.plainSession } }),
      403,
      'forbidden',
    );
    expectRefusal(await call(service, 'GET', WEBHOOKS, { auth: { key: reader.key } }), 403, 'forbidden');
    // A key scoped beyond its member gains nothing: scopes narrow, never widen.
    const widened = await createTenant(service.ctx, {
      permissions: ['service:contacts:read'],
      scopes: ['service:workspace:admin', 'service:contacts:read'],
    });
    expectRefusal(await call(service, 'GET', WEBHOOKS, { auth: { key: widened.key } }), 403, 'forbidden');
    // A key narrower than its member is held to its scopes.
    const narrow = await createTenant(service.ctx, { scopes: ['service:contacts:read'] });
    expectRefusal(await call(service, 'GET', WEBHOOKS, { auth: { key: narrow.key } }), 403, 'forbidden');
    expect((await call(service, 'GET', WEBHOOKS, { auth: { cookie: narrow.plainSession } })).status).toBe(
      200,
    ); // A member who loses a permission loses it on every key minted before.
    const demoted = await createTenant(service.ctx);
    expect((await call(service, 'GET', WEBHOOKS, { auth: { key: demoted.key } })).status).toBe(200);
    await store.db.query('UPDATE members SET permissions = $2 WHERE id = $1', [
      demoted.memberId,
      ['service:contacts:read'],
    ]);
    expectRefusal(await call(service, 'GET', WEBHOOKS, { auth: { key: demoted.key } }), 403, 'forbidden');
  });

  it('mints a key with a stepped-up session, within the member’s permissions, shown once', async () => {
    const tenant = await createTenant(service.ctx, {
      permissions: ['service:workspace:admin', 'service:contacts:read'],
    });
    const auth = { cookie: tenant.steppedUpSession };
    expectRefusal(
      await call(service, 'POST', '/v1/workspace/keys', {
        auth: { cookie: tenant.plainSession },
        body: { name: 'x', scopes: ['service:workspace:admin'] },
      }),
      403,
      'step_up_required',
    );
    expectRefusal(
      await call(service, 'POST', '/v1/workspace/keys', {
        auth,
        body: { name: 'x', scopes: ['service:contacts:manage'] },
      }),
      403,
      'forbidden',
    );
    for (const body of [
      {},
      { name: 'x' },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['service:nope'] },
      { name: '', scopes: ['service:workspace:admin'] },
      { name: 'x', scopes: ['service:workspace:admin'], extra: 1 },
    ]) {
      expectRefusal(
        await call(service, 'POST', '/v1/workspace/keys', { auth, body }),
        400,
        'invalid_request',
      );
    }
    const minted = await call(service, 'POST', '/v1/workspace/keys', {
      auth,
      body: { name: 'ci', scopes: ['service:workspace:admin'] },
    });
    expect(minted.status).toBe(201);
    const { api_key: apiKey, id } = minted.body as { api_key: string; id: string };
    expect(apiKey).toMatch(/^svc_[0-9a-f]{16}_[0-9a-f]{64}$/);
    expect(service.logs()).not.toContain(apiKey);
    const stored = await store.db.query<{ secret_hash: string }>(
      'SELECT secret_hash FROM api_keys WHERE id = $1',
      [id],
    );
    expect(stored[0]!.secret_hash).not.toContain(apiKey.split('_')[2]!);
    expect((await call(service, 'GET', WEBHOOKS, { auth: { key: apiKey } })).status).toBe(200);
    expect((await call(service, 'DELETE', `/v1/workspace/keys/${id}`, { auth })).status).toBe(204);
    expectRefusal(await call(service, 'GET', WEBHOOKS, { auth: { key: apiKey } }), 401, 'unauthenticated');
    expectRefusal(await call(service, 'DELETE', `/v1/workspace/keys/${id}`, { auth }), 404, 'not_found');
  });

  it.each([
    ['suspended', { suspended: true }, 'workspace_suspended'],
    ['on deletion hold', { deletionHold: true }, 'workspace_deletion_hold'],
    ['suspended and on deletion hold', { suspended: true, deletionHold: true }, 'workspace_deletion_hold'],
  ] as const)(
    'a workspace %s refuses the suspended-flagged operations and still deletes',
    async (_state, flags, code) => {
      const tenant = await createTenant(service.ctx);
      const created = operations.createWebhook.success.schema.parse(
        (await call(service, 'POST', WEBHOOKS, { auth: { cookie: tenant.steppedUpSession }, body: HOOK }))
          .body,
      );
      await store.db.query('UPDATE workspaces SET suspended = $2, deletion_hold = $3 WHERE id = $1', [
        tenant.workspaceId,
        'suspended' in flags,
        'deletionHold' in flags,
      ]);
      const key = { key: tenant.key };
      const id = created.endpoint.id;
      expectRefusal(
        await call(service, 'POST', WEBHOOKS, { auth: { cookie: tenant.steppedUpSession }, body: HOOK }),
        403,
        code,
      );
      expectRefusal(await call(service, 'POST', `${WEBHOOKS}/${id}/secret`, { auth: key }), 403, code);
      expectRefusal(
        await call(service, 'PATCH', `${WEBHOOKS}/${id}`, { auth: key, body: { status: 'paused' } }),
        403,
        code,
      );
      expect((await call(service, 'GET', WEBHOOKS, { auth: key })).status).toBe(200);
      expect((await call(service, 'GET', `${WEBHOOKS}/${id}/deliveries?limit=1`, { auth: key })).status).toBe(
        200,
      );
      expect((await call(service, 'DELETE', `${WEBHOOKS}/${id}`, { auth: key })).status).toBe(204);
    },
  );
});

/** A test-only operation registered without a handler. */
const unserved = defineOperation({
  operationId: 'testUnserved',
  group: 'webhooks',
  method: 'GET',
  path: '/v1/test/unserved',
  pathParams: null,
  query: null,
  body: null,
  success: { status: 204, schema: null },
  errors: [401, 403, 404],
  permission: 'service:workspace:admin',
  action: 'webhook:read',
  flags: { suspended: false, idempotent: false, stepUp: false },
  summary: 'test only',
});

describe('the rest of the surface', () => {
  const store = useStore();
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(store, {
      extra: { extraOperations: { testUnserved: unserved as Operation } },
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('serves the contract’s OpenAPI document', async () => {
    const result = await call(service, 'GET', '/v1/openapi.json');
    expect(result.status).toBe(200);
    expect(result.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('serves every contract operation, and answers an operation without a handler with 501', async () => {
    // Every row of the contract has a handler now: without credentials each one is a 401, never a 501.
    for (const op of Object.values(operations)) {
      const path = op.path.replace(/\{[a-z_]+\}/g, 'x');
      expectRefusal(await call(service, op.method, path), 401, 'unauthenticated');
    }
    // A registered row without a handler (a test-only one) still answers 501 with the error body.
    expectRefusal(await call(service, 'GET', '/v1/test/unserved'), 501, 'not_implemented');
  });

  it('answers an unknown route with 404 and the error body', async () => {
    expectRefusal(await call(service, 'GET', '/v1/nothing-here'), 404, 'not_found');
    expectRefusal(await call(service, 'PUT', WEBHOOKS), 404, 'not_found');
  });

  it('logs each request with the id that its error body carries', async () => {
    const result = await call(service, 'GET', WEBHOOKS, { headers: { authorization: 'Bearer svc_leak_me' } });
    const requestId = (result.body as { error: { request_id: string } }).error.request_id;
    const lines = service
      .logs()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { reqId?: string });
    expect(lines.filter((line) => line.reqId === requestId).length).toBeGreaterThan(0);
    expect(service.logs()).not.toContain('svc_leak_me');
  });

  it('ignores a caller-chosen request id', async () => {
    const result = await call(service, 'GET', '/v1/nothing', {
      headers: { 'request-id': 'mine', 'x-request-id': 'mine' },
    });
    expect((result.body as { error: { request_id: string } }).error.request_id).not.toBe('mine');
  });
});
