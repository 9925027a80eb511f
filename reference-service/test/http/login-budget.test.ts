import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGINS_PER_ACCOUNT, SESSIONS_PER_MEMBER } from '../../src/domain/sign-in-limits.js';
import { BACKENDS } from '../support/backends.js';
import { call, createTenant, startTestService, type TestService } from '../support/harness.js';
import { expectRateLimited, type RawAnswer, rawCall } from '../support/raw-call.js';
import { useStore } from '../support/service-lifecycle.js';

// Issue 40, item 1: right passwords were never limited (their tokens were given back), so one tenant
// looping on its own log-in ran scrypt as fast as the cores allowed and wrote a 12-hour session each time.

/** A clock the test moves, so that the refill is exact. */
const clock = { at: Date.now(), now: () => clock.at };

describe.each(BACKENDS)('the log-in budget of one account, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService(store, { now: clock.now });
  });
  afterAll(async () => {
    await service?.close();
  });

  const login = (email: string, password: string, localAddress = '127.0.60.1') =>
    rawCall(service.baseUrl, 'POST', '/v1/sessions', { body: { email, password }, localAddress });
  const sessionsOf = async (memberId: string) => {
    const rows = await store.db.query<{ n: string | number }>(
      'SELECT count(*) AS n FROM sessions WHERE member_id = $1',
      [memberId],
    );
    return Number(rows[0]!.n);
  };
  const cookieOf = (answer: RawAnswer) => String(answer.headers['set-cookie']).split(';')[0]!;
  const sessionWorks = async (cookie: string) =>
    (await call(service, 'GET', '/v1/session', { auth: { cookie } })).status === 200;

  it('refuses right passwords past the budget with 429, writing no session, and spares other accounts', async () => {
    const tenant = await createTenant(service.ctx);
    const other = await createTenant(service.ctx);
    // Wrong passwords are the guess buckets' business: they leave the log-in budget whole.
    for (let i = 0; i < 3; i++) expect((await login(tenant.email, 'wrong')).status).toBe(401);
    const cookies: string[] = [];
    for (let i = 0; i < LOGINS_PER_ACCOUNT.capacity; i++) {
      // A millisecond apart, so that "the oldest" is one session (the clock stands still otherwise).
      clock.at += 1;
      const answer = await login(tenant.email, tenant.password);
      expect(answer.status).toBe(201);
      cookies.push(cookieOf(answer));
    }
    const before = await sessionsOf(tenant.memberId);
    const refused = await login(tenant.email, tenant.password);
    expectRateLimited(refused);
    expect(refused.headers['set-cookie']).toBeUndefined();
    expect(await sessionsOf(tenant.memberId)).toBe(before);
    // Another spelling of the same mailbox is the same account, and another address changes nothing.
    expectRateLimited(await login(`${tenant.email.toUpperCase()}.`, tenant.password));
    expectRateLimited(await login(tenant.email, tenant.password, '127.0.60.2'));

    // Another account, from the same address, at the same moment: unaffected.
    expect((await login(other.email, other.password)).status).toBe(201);

    // The cap: the member holds at most SESSIONS_PER_MEMBER, the oldest ended, the newest all live.
    expect(before).toBe(SESSIONS_PER_MEMBER);
    expect(await sessionWorks(tenant.plainSession)).toBe(false);
    for (const cookie of cookies) expect(await sessionWorks(cookie)).toBe(true);

    // One log-in comes back a minute later; it ends the oldest session, not itself.
    clock.at += 60_000;
    const again = await login(tenant.email, tenant.password);
    expect(again.status).toBe(201);
    expect(await sessionWorks(cookieOf(again))).toBe(true);
    expect(await sessionWorks(cookies[0]!)).toBe(false);
    expect(await sessionsOf(tenant.memberId)).toBe(SESSIONS_PER_MEMBER);
    expectRateLimited(await login(tenant.email, tenant.password));
  });

  it('holds the budget and the cap against concurrent right passwords', async () => {
    const tenant = await createTenant(service.ctx);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => login(tenant.email, tenant.password, `127.0.61.${1 + (i % 4)}`)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(LOGINS_PER_ACCOUNT.capacity);
    for (const answer of answers) if (answer.status !== 201) expectRateLimited(answer);
    expect(await sessionsOf(tenant.memberId)).toBe(SESSIONS_PER_MEMBER);
  });
});
