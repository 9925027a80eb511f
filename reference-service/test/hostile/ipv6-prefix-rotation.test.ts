// A stranger holding an IPv6 prefix (a home gets a /56, a site a /48) counts as a new client in each of its
// /64s: before the /48 was counted too, ten /64s of one /48 made 50 accounts where one /64 made 5, and
// eight /64s had 240 wrong passwords run through scrypt where one had 30. The clients here are named by
// a trusted proxy's X-Forwarded-For, as a deployment behind a reverse proxy sees them.
import { describe, expect, it } from 'vitest';
import { accountOf, LOGIN_NETWORK_FAILURES, limitedAddress } from '../../src/domain/sign-in-limits.js';
import { SIGN_UP_NETWORK_ATTEMPTS } from '../../src/features/accounts/rules.js';
import { KNOWN_ADDRESSES_PER_ACCOUNT } from '../../src/store/queries/sign-in-addresses.js';
import { accountService, PASSWORD, uniqueEmail } from '../accounts/support.js';
import { BACKENDS } from '../support/backends.js';
import { rawCall } from '../support/raw-call.js';

/** The n-th /64 of a /48 (n < 65,536), one address in it. */
const inSlash64 = (prefix48: string, n: number) => `${prefix48}:${n.toString(16)}::1`;

/** A clock the last test moves by a minute per log-in, the per-account budget's refill. */
const clock = { at: Date.now(), now: () => clock.at };

describe.each(BACKENDS)('IPv6 prefixes walked /64 by /64, on $name', (backend) => {
  const running = accountService(backend, { now: clock.now, extra: { trustedProxies: ['127.0.0.1'] } });
  const post = (path: string, body: unknown, client: string) =>
    rawCall(running.service.baseUrl, 'POST', path, {
      body,
      headers: { 'x-forwarded-for': client },
      localAddress: '127.0.0.1',
    });

  it('counts sign-ups per /48 beside the /64: fresh /64s of one /48 run out together', async () => {
    const statuses: number[] = [];
    // Four sign-ups per /64, under the /64's budget of 5, so that only the /48 can refuse.
    for (let n = 0; statuses.length < SIGN_UP_NETWORK_ATTEMPTS.capacity + 4; n++)
      for (let i = 0; i < 4; i++)
        statuses.push(
          (
            await post(
              '/v1/accounts',
              { email: uniqueEmail('v6'), password: PASSWORD },
              inSlash64('2001:db8:a1', n),
            )
          ).status,
        );
    expect(statuses.slice(0, SIGN_UP_NETWORK_ATTEMPTS.capacity).every((status) => status === 201)).toBe(true);
    expect(statuses.slice(SIGN_UP_NETWORK_ATTEMPTS.capacity)).toEqual([429, 429, 429, 429]);
    // Another /48 is another network.
    expect(
      (
        await post(
          '/v1/accounts',
          { email: uniqueEmail('v6'), password: PASSWORD },
          inSlash64('2001:db8:a2', 0),
        )
      ).status,
    ).toBe(201);
  });

  it('counts wrong passwords per /48 beside the /64', async () => {
    const wrong = (n: number, i: number) =>
      post(
        '/v1/sessions',
        { email: `nobody-${n}-${i}@example.com`, password: 'not it' },
        inSlash64('2001:db8:b1', n),
      );
    let refused = 0;
    let tries = 0;
    // 20 per /64, under its 30, so that only the /48 can refuse.
    for (let n = 0; tries < LOGIN_NETWORK_FAILURES.capacity + 10; n++)
      for (let i = 0; i < 20; i++, tries++) if ((await wrong(n, i)).status === 429) refused++;
    expect(refused).toBe(tries - LOGIN_NETWORK_FAILURES.capacity);
    expect(
      (
        await post(
          '/v1/sessions',
          { email: 'x@example.com', password: 'not it' },
          inSlash64('2001:db8:b2', 0),
        )
      ).status,
    ).toBe(401);
  });

  it('remembers at most 32 addresses per account, the newest, however many /64s sign in', async () => {
    const email = uniqueEmail('walker');
    expect((await post('/v1/accounts', { email, password: PASSWORD }, '198.51.100.40')).status).toBe(201);
    const clients = Array.from({ length: KNOWN_ADDRESSES_PER_ACCOUNT + 8 }, (_, n) =>
      inSlash64('2001:db8:c1', n),
    );
    for (const client of clients) {
      clock.at += 60_000;
      expect((await post('/v1/sessions', { email, password: PASSWORD }, client)).status).toBe(201);
    }
    const rows = await running.store.db.query<{ address: string }>(
      'SELECT address FROM sign_in_known_addresses WHERE account = $1',
      [accountOf(email)],
    );
    const newest = clients.slice(-KNOWN_ADDRESSES_PER_ACCOUNT).map(limitedAddress);
    expect(rows.map((row) => row.address).sort()).toEqual(newest.sort());
  });
});
