import {
  ENDPOINTS_CREATED,
  EXPOSURE_LIMITS,
  EXPOSURE_WRITES,
  limitRefusal,
  MAX_ENDPOINTS_PER_HOST,
} from '@svc-kit/contract';
import { describe, expect, test } from 'vitest';
import { ALICE, BOB, expectError, FIXTURE, newcomerCard, raw, SLUG, useSandbox } from './support.js';

let now = 1_700_000_000_000;
const sandbox = useSandbox({ data: FIXTURE, now: () => now });

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

describe('the workspace budget of new endpoints (the contract’s ENDPOINTS_CREATED, as in the service)', () => {
  const create = (url: string) => raw('createWebhook', { auth: 'session', body: { url } });
  const remove = (id: string) => raw('deleteWebhook', { auth: 'session', params: { id } });
  /** Creates an endpoint on its own host and removes it: a loop of these is what the budget bounds. */
  async function churn(n: number) {
    const created = await create(`https://churn-${n}.example.org/hooks`);
    expect(created.status).toBe(201);
    expect((await remove(((await created.json()) as { endpoint: { id: string } }).endpoint.id)).status).toBe(
      204,
    );
  }

  test('a create-and-remove loop gets 429 with Retry-After past the budget; refused creates spend nothing', async () => {
    // Refused before the budget (a bad URL; the per-host cap): these cost nothing.
    await expectError(await create('http://plain.example.org/hooks'), 400, 'invalid_request');
    for (let i = 0; i < MAX_ENDPOINTS_PER_HOST; i++)
      expect((await create(`https://shared.example.org/hooks/${i}`)).status).toBe(201);
    await expectError(await create('https://shared.example.org/hooks/more'), 403, 'forbidden');
    for (let n = MAX_ENDPOINTS_PER_HOST; n < ENDPOINTS_CREATED.capacity; n++) await churn(n);

    const limited = await create('https://one-more.example.org/hooks');
    const error = await expectError(limited, 429, 'rate_limited');
    const every = Math.round(1 / ENDPOINTS_CREATED.perMs);
    const expected = limitRefusal(ENDPOINTS_CREATED, every);
    expect(error).toMatchObject({ message: expected.message, retry_after: every / 1000 });
    expect(limited.headers.get('retry-after')).toBe(String(expected.retryAfter));
    // Nothing was created by the refused call; one refill later, one more create passes.
    now += every;
    expect((await create('https://one-more.example.org/hooks')).status).toBe(201);
    await expectError(await create('https://and-another.example.org/hooks'), 429, 'rate_limited');
  });
});

describe('the workspace budget of exposure writes (the contract’s EXPOSURE_WRITES, as in the service)', () => {
  const write = (entries: unknown[]) =>
    raw('setExposure', { params: { slug: SLUG, name: 'notes' }, body: { entries } });

  test('past the budget setExposure is a 429 that writes nothing; an invalid write spends nothing', async () => {
    const tooMany = Array.from({ length: EXPOSURE_LIMITS.maxEntries + 1 }, (_, i) => ({
      tool: `t${i}`,
      mode: 'agent',
    }));
    await expectError(await write(tooMany), 400, 'invalid_request');
    for (let n = 0; n < EXPOSURE_WRITES.capacity; n++) expect((await write([])).status).toBe(200);
    const limited = await write([{ tool: 'search', mode: 'agent' }]);
    const error = await expectError(limited, 429, 'rate_limited');
    const every = Math.round(1 / EXPOSURE_WRITES.perMs);
    expect(error).toMatchObject({
      message: limitRefusal(EXPOSURE_WRITES, every).message,
      retry_after: every / 1000,
    });
    expect(limited.headers.get('retry-after')).toBe(String(every / 1000));
    expect(sandbox.state.exposure(SLUG, 'notes')).toMatchObject({
      entries: [],
      version: EXPOSURE_WRITES.capacity,
    });
    now += every;
    expect((await write([])).status).toBe(200);
  });
});
