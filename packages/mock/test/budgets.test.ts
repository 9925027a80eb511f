import { describe, expect, test } from 'vitest';
import { ALICE, BOB, expectError, FIXTURE, newcomerCard, raw, SLUG, useSandbox } from './support.js';

let now = 1_700_000_000_000;
useSandbox({ data: FIXTURE, now: () => now });

const tools = (fingerprint = ALICE) => raw('listContactTools', { params: { slug: SLUG, fingerprint } });

describe('outbound budgets (spec part 8, the contract limits, as in the service)', () => {
  test('per contact: a burst of 10, then one a second; 429 with retry_after equal to Retry-After', async () => {
    for (let i = 0; i < 10; i++) expect((await tools()).status).toBe(200);
    const limited = await tools();
    const error = await expectError(limited, 429, 'rate_limited');
    expect(error.retry_after).toBe(1);
    expect(limited.headers.get('retry-after')).toBe('1');
    now += 1000;
    expect((await tools()).status).toBe(200);
  });

  test('strangers: 20 an hour, repeated requests to a party that has not answered included', async () => {
    for (let i = 0; i < 20; i++) {
      expect(
        (await raw('requestContact', { params: { slug: SLUG }, body: { card: newcomerCard } })).status,
      ).toBe(201);
      now += 1000;
    }
    const limited = await raw('requestContact', { params: { slug: SLUG }, body: { card: newcomerCard } });
    const error = await expectError(limited, 429, 'rate_limited');
    expect(error.message).toMatch(/not active contacts/);
    // Answering a received request is a call to a party that is not an active contact either.
    await expectError(
      await raw('approveContact', { params: { slug: SLUG, fingerprint: BOB }, body: {} }),
      429,
      'rate_limited',
    );
    // A call to an active contact does not need that budget.
    expect((await tools()).status).toBe(200);
  });

  test('a 429 is not remembered under an Idempotency-Key', async () => {
    for (let i = 0; i < 20; i++) {
      await raw('requestContact', { params: { slug: SLUG }, body: { card: newcomerCard } });
      now += 1000;
    }
    const params = { slug: SLUG, fingerprint: BOB };
    const headers = { 'idempotency-key': 'after-429' };
    await expectError(await raw('approveContact', { params, body: {}, headers }), 429, 'rate_limited');
    now += 60 * 60 * 1000;
    expect((await raw('approveContact', { params, body: {}, headers })).status).toBe(200);
  });
});
