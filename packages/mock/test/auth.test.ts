import { operationList, PERMISSIONS } from '@svc-kit/contract';
import { describe, expect, test } from 'vitest';
import { SANDBOX_API_KEY, SESSION_COOKIE } from '../src/index.js';
import { ALICE, BASE_URL, expectError, FIXTURE, raw, SESSION_HEADERS, SLUG, useSandbox } from './support.js';

const sandbox = useSandbox({ data: FIXTURE });
const KEY_B = `svc_${'b'.repeat(16)}_${'c'.repeat(64)}`;

/** Path parameters that fit any operation; the call is refused before they matter. */
const anyParams = { id: 'whk_seeded', slug: SLUG, fingerprint: ALICE, name: 'notes' };

describe('credentials', () => {
  test.each(operationList.map((op) => op.operationId))(
    '%s without credentials answers 401',
    async (operationId) => {
      const error = await expectError(
        await raw(operationId, { params: anyParams, auth: 'none' }),
        401,
        'unauthenticated',
      );
      expect(error.message).toBe('no portal session and no live API key');
    },
  );

  test.each([
    ['a key of the wrong shape', 'Bearer svc_abc_def'],
    ['an upper-case key', `Bearer ${SANDBOX_API_KEY.toUpperCase()}`],
    ['another scheme', `Basic ${SANDBOX_API_KEY}`],
    ['an empty bearer', 'Bearer '],
    ['two tokens', `Bearer ${SANDBOX_API_KEY} extra`],
  ])('%s is answered exactly like a missing key', async (_why, authorization) => {
    const missing = await expectError(await raw('listWebhooks', { auth: 'none' }), 401, 'unauthenticated');
    const malformed = await expectError(
      await raw('listWebhooks', { auth: 'none', headers: { authorization } }),
      401,
      'unauthenticated',
    );
    expect(malformed.message).toBe(missing.message);
  });

  test('a present Authorization header decides even when a session cookie rides along', async () => {
    await expectError(
      await raw('listWebhooks', { auth: 'session', headers: { authorization: 'Bearer nope' } }),
      401,
      'unauthenticated',
    );
  });

  test('an empty session cookie is no session', async () => {
    await expectError(
      await raw('listWebhooks', { auth: 'none', headers: { cookie: `${SESSION_COOKIE}=` } }),
      401,
      'unauthenticated',
    );
  });

  test('credentials are checked before arguments', async () => {
    await expectError(
      await raw('setTrust', { params: anyParams, auth: 'none', body: { trust: 'x' } }),
      401,
      'unauthenticated',
    );
  });
});

describe('step-up', () => {
  test('createWebhook with a key is 403 step_up_required, whatever the key carries', async () => {
    sandbox.seed({ apiKeys: [{ key: SANDBOX_API_KEY, permissions: [...PERMISSIONS] }] });
    const error = await expectError(
      await raw('createWebhook', { body: { url: 'https://r.example.org/h' } }),
      403,
      'step_up_required',
    );
    expect(error.message).toContain('API keys cannot step up');
    expect(sandbox.state.webhooks()).toHaveLength(1);
  });

  test('a session that has not stepped up is refused createWebhook, and only that', async () => {
    sandbox.seed({ sessions: [{ token: 'tired', steppedUp: false }] });
    const cookie = { cookie: `${SESSION_COOKIE}=tired` };
    await expectError(
      await raw('createWebhook', { auth: 'none', headers: cookie, body: { url: 'https://r.example.org/h' } }),
      403,
      'step_up_required',
    );
    expect(
      (
        await raw('setWebhookStatus', {
          auth: 'none',
          headers: cookie,
          params: anyParams,
          body: { status: 'paused' },
        })
      ).status,
    ).toBe(200);
  });
});

describe('seeded credentials', () => {
  test('once keys are seeded, only they are live, with their permissions', async () => {
    sandbox.seed({ apiKeys: [{ key: KEY_B, permissions: ['service:contacts:read'] }] });
    const asB = { auth: 'none', headers: { authorization: `Bearer ${KEY_B}` } } as const;
    await expectError(await raw('listWebhooks'), 401, 'unauthenticated');
    expect((await raw('listContacts', { ...asB, params: anyParams })).status).toBe(200);
    const error = await expectError(await raw('listWebhooks', asB), 403, 'forbidden');
    expect(error.message).toContain('service:workspace:admin');
    // Sessions are not affected by seeding keys.
    expect((await raw('listWebhooks', { auth: 'session' })).status).toBe(200);
  });

  test('once sessions are seeded, only they are live', async () => {
    sandbox.seed({ sessions: [{ token: 'reader', permissions: ['service:identities:read'] }] });
    await expectError(await raw('listWebhooks', { auth: 'session' }), 401, 'unauthenticated');
    const reader = { auth: 'none', headers: { cookie: `${SESSION_COOKIE}=reader` } } as const;
    expect((await raw('listIntegrations', { ...reader, params: anyParams })).status).toBe(200);
    await expectError(await raw('deleteIntegration', { ...reader, params: anyParams }), 403, 'forbidden');
  });
});

describe('cross-site calls with a session', () => {
  const state = { params: anyParams, body: { status: 'paused' } };

  test('a state-changing call from another origin is 403 cross_site', async () => {
    await expectError(
      await raw('setWebhookStatus', {
        ...state,
        auth: 'session',
        headers: { origin: 'https://evil.example' },
      }),
      403,
      'cross_site',
    );
    await expectError(
      await raw('setWebhookStatus', {
        ...state,
        auth: 'session',
        headers: { 'sec-fetch-site': 'cross-site' },
      }),
      403,
      'cross_site',
    );
    expect(sandbox.state.webhooks()[0]?.status).toBe('active');
  });

  test('a session write that shows no origin at all is refused too, as by the service', async () => {
    const { path, method } = { path: '/v1/workspace/webhooks/whk_seeded', method: 'PATCH' };
    for (const extra of [{}, { referer: `${BASE_URL}/portal` }, { 'sec-fetch-site': 'none' }]) {
      const response = await fetch(`${BASE_URL}${path}`, {
        method,
        headers: { ...SESSION_HEADERS, 'content-type': 'application/json', ...extra },
        body: JSON.stringify({ status: 'paused' }),
      });
      await expectError(response, 403, 'cross_site');
    }
    expect(sandbox.state.webhooks()[0]?.status).toBe('active');
  });

  test('same-origin calls, reads, and key calls are not cross-site', async () => {
    const sameOrigin = await raw('setWebhookStatus', {
      ...state,
      auth: 'session',
      headers: { origin: BASE_URL },
    });
    expect(sameOrigin.status).toBe(200);
    expect(
      (await raw('listWebhooks', { auth: 'session', headers: { origin: 'https://evil.example' } })).status,
    ).toBe(200);
    expect(
      (await raw('setWebhookStatus', { ...state, headers: { origin: 'https://evil.example' } })).status,
    ).toBe(200);
  });

  test('SESSION_HEADERS of the tests is a session', async () => {
    expect((await raw('listWebhooks', { auth: 'none', headers: SESSION_HEADERS })).status).toBe(200);
  });
});

describe('workspace suspended or on deletion hold', () => {
  test('operations flagged suspended are refused; the others work', async () => {
    sandbox.seed({ workspace: { suspended: true } });
    await expectError(
      await raw('setWebhookStatus', { params: anyParams, body: { status: 'paused' } }),
      403,
      'workspace_suspended',
    );
    expect((await raw('listWebhooks')).status).toBe(200);
    // Deletion is allowed even now (spec 3.1).
    expect((await raw('deleteWebhook', { params: anyParams })).status).toBe(204);
  });

  test('deletion hold has its own code and wins over suspension', async () => {
    sandbox.seed({ workspace: { suspended: true, deletionHold: true } });
    await expectError(await raw('blockContact', { params: anyParams }), 403, 'workspace_deletion_hold');
  });
});
