import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentTotp } from '../../src/domain/totp.js';
import { openSession } from '../../src/features/accounts/session.js';
import { SESSION_COOKIE } from '../../src/http/principal.js';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { BACKENDS, createEmptyPostgres } from '../support/backends.js';
import { call, createTenant, expectRefusal, startTestService, type TestService } from '../support/harness.js';
import { expectRateLimited, rawCall } from '../support/raw-call.js';
import { useStore } from '../support/service-lifecycle.js';

const STEP_UP = '/v1/sessions/step-up';
const LOGIN = '/v1/sessions';
const WEBHOOKS = '/v1/workspace/webhooks';

/** A clock the test moves: refills and TOTP steps become exact. */
const clock = { at: Date.now(), now: () => clock.at };

/** A 6-digit code that is none of the three the service accepts right now. */
function wrongCode(secret: string, now: number): string {
  const accepted = new Set([-30_000, 0, 30_000].map((drift) => currentTotp(secret, now + drift)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!accepted.has(code)) return code;
  }
}

const fakeKey = () => `svc_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('hex')}`;

describe.each(BACKENDS)('guessing limits of sign-in, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(store, { now: clock.now });
  });
  afterAll(async () => {
    await service?.close();
  });

  const stepUp = (cookie: string, code: string) =>
    rawCall(service.baseUrl, 'POST', STEP_UP, {
      headers: { cookie, origin: new URL(service.baseUrl).origin },
      body: { code },
    });
  const login = (
    email: string,
    password: string,
    localAddress: string,
    headers: Record<string, string> = {},
  ) => rawCall(service.baseUrl, 'POST', LOGIN, { body: { email, password }, localAddress, headers });

  it('answers 429 after 5 wrong step-up codes of a member, on any session and after a restart', async () => {
    const tenant = await createTenant(service.ctx);
    const secret = tenant.totpSecret!;
    for (let i = 0; i < 5; i++) {
      const wrong = await stepUp(tenant.plainSession, wrongCode(secret, clock.at));
      expect(wrong.status).toBe(403);
    }
    // The right code does not help once the budget is spent: the limit is checked before the code.
    expectRateLimited(await stepUp(tenant.plainSession, currentTotp(secret, clock.at)));
    const other = await openSession(service.ctx, tenant.memberId, false);
    const otherCookie = `${SESSION_COOKIE}=${other.token}`;
    expectRateLimited(await stepUp(otherCookie, currentTotp(secret, clock.at)));

    // A new service on the same database (a restart, or another instance) still counts the failures.
    const { secretBox } = service.ctx;
    await service.close();
    service = await startTestService(store, { now: clock.now, secretBox });
    expectRateLimited(await stepUp(tenant.plainSession, currentTotp(secret, clock.at)));
    expectRefusal(
      await call(service, 'POST', WEBHOOKS, {
        auth: { cookie: tenant.plainSession },
        body: { url: 'https://hooks.example.com/x' },
      }),
      403,
      'step_up_required',
    );

    // One attempt comes back every 10 minutes.
    clock.at += 10 * 60_000;
    expect((await stepUp(tenant.plainSession, currentTotp(secret, clock.at))).status).toBe(200);
  });

  it('accepts a TOTP code once per member, on whichever session', async () => {
    const tenant = await createTenant(service.ctx);
    const secret = tenant.totpSecret!;
    const code = currentTotp(secret, clock.at);
    const second = await openSession(service.ctx, tenant.memberId, false);
    const secondCookie = `${SESSION_COOKIE}=${second.token}`;
    expect((await stepUp(tenant.plainSession, code)).status).toBe(200);
    const again = await stepUp(tenant.plainSession, code);
    expect(again.status).toBe(403);
    expect(again.body).toMatchObject({ error: { code: 'step_up_required' } });
    expect((await stepUp(secondCookie, code)).status).toBe(403);
    const rows = await store.db.query<{ totp_last_step: string | number }>(
      'SELECT totp_last_step FROM members WHERE id = $1',
      [tenant.memberId],
    );
    expect(Number(rows[0]!.totp_last_step)).toBe(Math.floor(clock.at / 30_000));
    // The next step's code is new: accepted once.
    clock.at += 30_000;
    expect((await stepUp(secondCookie, currentTotp(secret, clock.at))).status).toBe(200);
  });

  it('limits wrong passwords per account and address without locking the owner out elsewhere', async () => {
    const tenant = await createTenant(service.ctx);
    for (let i = 0; i < 5; i++) {
      expect((await login(tenant.email, 'wrong', '127.0.10.1')).status).toBe(401);
    }
    expectRateLimited(await login(tenant.email, tenant.password, '127.0.10.1'));
    // Forwarded headers are not believed without SVC_TRUSTED_PROXIES: the socket's address counts.
    expectRateLimited(
      await login(tenant.email, tenant.password, '127.0.10.1', { 'x-forwarded-for': '198.51.100.7' }),
    );
    expect((await login(tenant.email, tenant.password, '127.0.10.2')).status).toBe(201);
  });

  it('limits wrong passwords per account from new addresses, never from addresses the owner used', async () => {
    const tenant = await createTenant(service.ctx);
    // The owner signs in from home once: that address is known from then on.
    expect((await login(tenant.email, tenant.password, '127.0.20.1')).status).toBe(201);
    // A stranger spreads 20 wrong passwords over four addresses (5 each, the per-address-pair limit).
    for (const address of ['127.0.21.1', '127.0.21.2', '127.0.21.3', '127.0.21.4']) {
      for (let i = 0; i < 5; i++) expect((await login(tenant.email, 'wrong', address)).status).toBe(401);
    }
    // The account's budget for new addresses is spent, even with the right password...
    expectRateLimited(await login(tenant.email, tenant.password, '127.0.21.5'));
    // ...but the owner's known address is not affected.
    expect((await login(tenant.email, tenant.password, '127.0.20.1')).status).toBe(201);
  });

  it('limits wrong passwords from one address across accounts', async () => {
    // 30 failures over six unknown accounts (5 each), then a seventh account is refused before scrypt.
    for (let account = 0; account < 6; account++) {
      for (let i = 0; i < 5; i++) {
        expect((await login(`nobody${account}@spray.example`, 'guess', '127.0.30.1')).status).toBe(401);
      }
    }
    expectRateLimited(await login('nobody6@spray.example', 'guess', '127.0.30.1'));
    expect((await login('nobody6@spray.example', 'guess', '127.0.30.2')).status).toBe(401);
  });

  it('slows refused API keys from one address, and lets valid keys through', async () => {
    const tenant = await createTenant(service.ctx);
    const list = (key: string, localAddress: string) =>
      rawCall(service.baseUrl, 'GET', WEBHOOKS, {
        headers: { authorization: `Bearer ${key}` },
        localAddress,
      });
    for (let i = 0; i < 30; i++) expect((await list(fakeKey(), '127.0.40.1')).status).toBe(401);
    expectRateLimited(await list(fakeKey(), '127.0.40.1'));
    expect((await list(tenant.key, '127.0.40.1')).status).toBe(200);
    expect((await list(fakeKey(), '127.0.40.2')).status).toBe(401);
  });

  it('keeps retry_after and Retry-After on a 429 answered before the handler (a NUL in the query)', async () => {
    const refused = () =>
      rawCall(service.baseUrl, 'GET', `${WEBHOOKS}?limit=%00`, {
        headers: { authorization: `Bearer ${fakeKey()}` },
        localAddress: '127.0.40.3',
      });
    for (let i = 0; i < 30; i++) expect((await refused()).status).toBe(401);
    expectRateLimited(await refused());
  });
});

describe('behind a trusted proxy', () => {
  const store = useStore();
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(store, { extra: { trustedProxies: ['127.0.0.1'] } });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('counts the client the proxy names, and only a listed proxy is believed', async () => {
    const list = (client: string, localAddress: string) =>
      rawCall(service.baseUrl, 'GET', WEBHOOKS, {
        headers: { authorization: `Bearer ${fakeKey()}`, 'x-forwarded-for': client },
        localAddress,
      });
    for (let i = 0; i < 30; i++) expect((await list('203.0.113.1', '127.0.0.1')).status).toBe(401);
    expectRateLimited(await list('203.0.113.1', '127.0.0.1'));
    expect((await list('203.0.113.2', '127.0.0.1')).status).toBe(401);
    // 127.0.50.1 is not a listed proxy: its X-Forwarded-For is ignored, its own address counts.
    expect((await list('203.0.113.1', '127.0.50.1')).status).toBe(401);
  });
});

describe('two instances on one PostgreSQL database', () => {
  let database: Awaited<ReturnType<typeof createEmptyPostgres>>;
  const stores: OpenedStore[] = [];
  const services: TestService[] = [];

  beforeAll(async () => {
    database = await createEmptyPostgres();
    for (let i = 0; i < 2; i++)
      stores.push(await openStore({ databaseUrl: database.url, dataDir: '/nonexistent' }));
    const first = await startTestService(stores[0]!);
    services.push(first, await startTestService(stores[1]!, { secretBox: first.ctx.secretBox }));
  });
  afterAll(async () => {
    for (const service of services) await service.close();
    for (const store of stores) await store.close();
    await database?.drop();
  });

  it('share one step-up budget per member: failures on either count for both', async () => {
    const [one, two] = services as [TestService, TestService];
    const tenant = await createTenant(one.ctx);
    const secret = tenant.totpSecret!;
    const stepUp = (service: TestService, code: string) =>
      rawCall(service.baseUrl, 'POST', STEP_UP, {
        headers: { cookie: tenant.plainSession, origin: new URL(service.baseUrl).origin },
        body: { code },
      });
    for (const service of [one, two, one, two, one]) {
      expect((await stepUp(service, wrongCode(secret, Date.now()))).status).toBe(403);
    }
    expectRateLimited(await stepUp(two, currentTotp(secret, Date.now())));
    expectRateLimited(await stepUp(one, currentTotp(secret, Date.now())));
  });
});
