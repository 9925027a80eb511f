import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/domain/totp.js';
import { BACKENDS } from '../support/backends.js';
import { dumpDatabase } from '../support/db-dump.js';
import { startTestService, type TestService } from '../support/harness.js';
import type { RawAnswer } from '../support/raw-call.js';
import { useStore } from '../support/service-lifecycle.js';
import { cookieOf, expectError, freshAddress, PASSWORD, portalCall, uniqueEmail } from './support.js';

const clock = { at: Date.now(), now: () => clock.at };

/** The secrets of one account's life, to be looked for where they must not be. */
interface Planted {
  password: string;
  memberPassword: string;
  totpSecret: string;
  recoveryCodes: string[];
  inviteToken: string;
}

describe.each(BACKENDS)('account secrets, guessing limits and cross-site calls on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  const answers: RawAnswer[] = [];
  let planted: Planted;
  let owner: string;
  let memberId: string;

  const call = async (method: string, path: string, options: Parameters<typeof portalCall>[3] = {}) => {
    const answer = await portalCall(service.baseUrl, method, path, options);
    answers.push(answer);
    return answer;
  };

  beforeAll(async () => {
    service = await startTestService(store, { now: clock.now, extra: { signUpOpen: true } });
    const password = `${PASSWORD} owner ${Math.random()}`;
    const signedUp = await call('POST', '/v1/accounts', {
      body: { email: uniqueEmail('secrets'), password },
      from: freshAddress(),
    });
    owner = cookieOf(signedUp);
    const started = await call('POST', '/v1/session/mfa', { cookie: owner });
    const totpSecret = (started.body as { secret: string }).secret;
    clock.at += 30_000;
    const confirmed = await call('POST', '/v1/session/mfa/confirm', {
      cookie: owner,
      body: { code: currentTotp(totpSecret, clock.at) },
    });
    const recoveryCodes = (confirmed.body as { recovery_codes: string[] }).recovery_codes;
    const invited = await call('POST', '/v1/workspace/members', {
      cookie: owner,
      body: { email: uniqueEmail('invited'), permissions: ['service:contacts:read'] },
    });
    const { invite_token: inviteToken, member } = invited.body as {
      invite_token: string;
      member: { id: string };
    };
    memberId = member.id;
    const memberPassword = `${PASSWORD} member ${Math.random()}`;
    const accepted = await call('POST', '/v1/invites/accept', {
      body: { token: inviteToken, password: memberPassword },
      from: freshAddress(),
    });
    expect(accepted.status).toBe(201);
    await call('POST', '/v1/sessions/step-up', { cookie: owner, body: { recovery_code: recoveryCodes[9] } });
    for (const path of ['/v1/session', '/v1/workspace/members', '/v1/workspace/keys'])
      await call('GET', path, { cookie: owner });
    planted = { password, memberPassword, totpSecret, recoveryCodes, inviteToken };
  });
  afterAll(async () => {
    await service?.close();
  });

  it('no secret is in an answer except the one that shows it once, in a log line, or in a plaintext row', async () => {
    const secrets = [
      planted.password,
      planted.memberPassword,
      planted.totpSecret,
      planted.inviteToken,
      ...planted.recoveryCodes,
      ...planted.recoveryCodes.map((code) => code.replace(/-/g, '')),
    ];
    const shownOnce = [planted.totpSecret, planted.inviteToken, ...planted.recoveryCodes];
    for (const secret of secrets) {
      const showing = answers.filter((answer) => JSON.stringify(answer.body).includes(secret));
      expect(showing.length, secret).toBeLessThanOrEqual(shownOnce.includes(secret) ? 1 : 0);
      expect(service.logs(), secret).not.toContain(secret);
      // The TOTP seed's base32 and each code's 16 characters, in any case.
      expect((await dumpDatabase(store.db)).toUpperCase(), secret).not.toContain(secret.toUpperCase());
    }
  });

  it('refuses every state-changing account route from another site, changing nothing', async () => {
    const before = await dumpDatabase(store.db, ['outbound_budgets']);
    const routes: [string, string, unknown][] = [
      ['DELETE', '/v1/session', undefined],
      ['POST', '/v1/session/mfa', undefined],
      ['POST', '/v1/session/mfa/confirm', { code: '123456' }],
      ['POST', '/v1/workspace/members', { email: uniqueEmail(), permissions: [] }],
      ['DELETE', `/v1/workspace/members/${memberId}`, undefined],
      ['PATCH', '/v1/workspace', { webhooks_enabled: false }],
      ['POST', '/v1/sessions/step-up', { code: '123456' }],
      ['POST', '/v1/workspace/keys', { name: 'x', scopes: ['service:contacts:read'] }],
    ];
    for (const [method, path, body] of routes) {
      for (const origin of ['https://evil.example', null]) {
        const answer = await call(method, path, { cookie: owner, body, origin });
        expect(answer.status, `${method} ${path} from ${origin}`).toBe(403);
        expectError(answer, 403, 'cross_site');
      }
    }
    for (const [path, body] of [
      ['/v1/accounts', { email: uniqueEmail(), password: PASSWORD }],
      ['/v1/invites/accept', { token: 'x'.repeat(43), password: PASSWORD }],
    ] as const) {
      expectError(
        await call('POST', path, { body, origin: 'https://evil.example', from: freshAddress() }),
        403,
        'cross_site',
      );
    }
    expect(await dumpDatabase(store.db, ['outbound_budgets'])).toBe(before);
    expect((await call('GET', '/v1/session', { cookie: owner })).status).toBe(200);
  });

  it('limits wrong invite tokens per address: 429 with Retry-After, even for a right token', async () => {
    const invited = await call('POST', '/v1/workspace/members', {
      cookie: owner,
      body: { email: uniqueEmail('late'), permissions: [] },
    });
    expect(invited.status).toBe(201);
    const token = (invited.body as { invite_token: string }).invite_token;
    const from = freshAddress();
    for (let i = 0; i < 10; i++) {
      const wrong = await call('POST', '/v1/invites/accept', {
        body: { token: `${token.slice(0, -2)}${i}x`, password: PASSWORD },
        from,
      });
      expectError(wrong, 404, 'not_found');
    }
    const limited = await call('POST', '/v1/invites/accept', { body: { token, password: PASSWORD }, from });
    expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(
      (
        await call('POST', '/v1/invites/accept', {
          body: { token, password: PASSWORD },
          from: freshAddress(),
        })
      ).status,
    ).toBe(201);
  });

  it('limits wrong recovery codes with the step-up budget: 429 after 5, even for a right code', async () => {
    for (let i = 0; i < 5; i++) {
      const wrong = await call('POST', '/v1/sessions/step-up', {
        cookie: owner,
        body: { recovery_code: `AAAA-AAAA-AAAA-AAA${i}` },
      });
      expectError(wrong, 403, 'step_up_required');
    }
    const limited = await call('POST', '/v1/sessions/step-up', {
      cookie: owner,
      body: { recovery_code: planted.recoveryCodes[0] },
    });
    expectError(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The budget refills (one every 10 minutes), and the code was not spent by the refused call.
    clock.at += 10 * 60_000;
    expect(
      (
        await call('POST', '/v1/sessions/step-up', {
          cookie: owner,
          body: { recovery_code: planted.recoveryCodes[0] },
        })
      ).status,
    ).toBe(200);
  });
});
