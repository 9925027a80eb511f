import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { BACKENDS } from '../support/backends.js';
import { startTestService, type TestService } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { cookieOf, expectError, freshAddress, PASSWORD, portalCall, uniqueEmail } from './support.js';

describe.each(BACKENDS)('sign-up, session and logout on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let closed: TestService;

  beforeAll(async () => {
    service = await startTestService(store, { extra: { signUpOpen: true } });
    closed = await startTestService(store, { extra: { signUpOpen: false } });
  });
  afterAll(async () => {
    await service?.close();
    await closed?.close();
  });

  it('creates a workspace with webhooks on, two identities with keys, and its owner signed in', async () => {
    const email = uniqueEmail();
    const answer = await portalCall(service.baseUrl, 'POST', '/v1/accounts', {
      body: { email: `  ${email.toUpperCase()} `, password: PASSWORD, workspace_name: 'Acme Hooks' },
      from: freshAddress(),
    });
    expect(answer.status).toBe(201);
    const cookie = cookieOf(answer);
    const setCookie = String(answer.headers['set-cookie']);
    expect(setCookie).toMatch(/Secure/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const view = answer.body as {
      member: { id: string; email: string; permissions: string[]; owner: boolean; mfa_enrolled: boolean };
      workspace: { id: string; name: string; webhooks_enabled: boolean };
      identities: { slug: string }[];
      stepped_up_until: number | null;
    };
    expect(view.member).toMatchObject({ email, owner: true, mfa_enrolled: false });
    expect(view.member.permissions).toContain('service:workspace:admin');
    expect(view.workspace).toMatchObject({ name: 'Acme Hooks', webhooks_enabled: true });
    expect(view.identities).toHaveLength(2);
    expect(view.identities[0]!.slug).toMatch(/^acme-hooks-[0-9a-f]{12}-(alice|bob)$/);
    expect(view.stepped_up_until).toBeNull();
    const keys = await store.db.query<{ n: number | string }>(
      `SELECT count(*) AS n FROM identity_keys k JOIN identities i ON i.id = k.identity_id
        WHERE i.workspace_id = $1`,
      [view.workspace.id],
    );
    expect(Number(keys[0]!.n)).toBe(2);

    const again = await portalCall(service.baseUrl, 'GET', '/v1/session', { cookie });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(view);

    // The same e-mail again: 409, whatever its case.
    expectError(
      await portalCall(service.baseUrl, 'POST', '/v1/accounts', {
        body: { email, password: PASSWORD },
        from: freshAddress(),
      }),
      409,
      'conflict',
    );

    // Logout deletes the session: the cookie is dead afterwards, and the answer clears it.
    const out = await portalCall(service.baseUrl, 'DELETE', '/v1/session', { cookie });
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/);
    expectError(await portalCall(service.baseUrl, 'GET', '/v1/session', { cookie }), 401, 'unauthenticated');
    // The password works for a log-in.
    const login = await portalCall(service.baseUrl, 'POST', '/v1/sessions', {
      body: { email, password: PASSWORD },
      from: freshAddress(),
    });
    expect(login.status).toBe(201);
  });

  it('refuses weak passwords and malformed e-mails with words, before spending the budget', async () => {
    const from = freshAddress();
    for (const [email, password, words] of [
      [uniqueEmail(), 'short', /at least 12/],
      [uniqueEmail(), 'aaaaaaaaaaaaaaaa', /too few different/],
      ['not-an-email', PASSWORD, /not an e-mail/],
      ['anna@x.example', 'anna-anna-anna-1', /must not contain/],
    ] as const) {
      const answer = await portalCall(service.baseUrl, 'POST', '/v1/accounts', {
        body: { email, password },
        from,
      });
      expectError(answer, 400, 'invalid_request');
      expect((answer.body as { error: { message: string } }).error.message).toMatch(words);
    }
  });

  it('is closed when the operator closes it (production default), and cross-site sign-ups are refused', async () => {
    expect(readConfig({}).signUpOpen).toBe(true);
    expect(readConfig({ NODE_ENV: 'production', SVC_PUBLIC_URL: 'https://svc.example' }).signUpOpen).toBe(
      false,
    );
    expect(
      readConfig({ NODE_ENV: 'production', SVC_PUBLIC_URL: 'https://svc.example', SVC_SIGNUP: 'open' })
        .signUpOpen,
    ).toBe(true);
    expect(() => readConfig({ SVC_SIGNUP: 'yes' })).toThrow(/SVC_SIGNUP/);
    const answer = await portalCall(closed.baseUrl, 'POST', '/v1/accounts', {
      body: { email: uniqueEmail(), password: PASSWORD },
      from: freshAddress(),
    });
    expectError(answer, 403, 'forbidden');
    expect((answer.body as { error: { message: string } }).error.message).toMatch(/sign-up is closed/);
    expectError(
      await portalCall(service.baseUrl, 'POST', '/v1/accounts', {
        body: { email: uniqueEmail(), password: PASSWORD },
        origin: 'https://evil.example',
        from: freshAddress(),
      }),
      403,
      'cross_site',
    );
  });

  it('limits sign-ups per client address: 429 with Retry-After after 5', async () => {
    const from = freshAddress();
    for (let i = 0; i < 5; i++) {
      const answer = await portalCall(service.baseUrl, 'POST', '/v1/accounts', {
        body: { email: uniqueEmail('burst'), password: PASSWORD },
        from,
      });
      expect(answer.status).toBe(201);
    }
    const refused = await portalCall(service.baseUrl, 'POST', '/v1/accounts', {
      body: { email: uniqueEmail('burst'), password: PASSWORD },
      from,
    });
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not affected.
    const elsewhere = await portalCall(service.baseUrl, 'POST', '/v1/accounts', {
      body: { email: uniqueEmail('burst'), password: PASSWORD },
      from: freshAddress(),
    });
    expect(elsewhere.status).toBe(201);
  });

  it('GET /v1/session answers 401 to an API key and to nothing', async () => {
    expectError(await portalCall(service.baseUrl, 'GET', '/v1/session'), 401, 'unauthenticated');
  });
});
