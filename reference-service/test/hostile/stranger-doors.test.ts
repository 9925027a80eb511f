import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OAUTH_STATE_GUESSES,
  PEER_CALLS_PER_ADDRESS,
  PENDING_FULL_RETRY_SECONDS,
  PENDING_REQUESTS_CAP,
  STRANGER_CALLS_PER_IDENTITY,
} from '../../src/domain/door-limits.js';
import { OAUTH_BINDING_COOKIE, stateBinding } from '../../src/features/integrations/oauth-binding.js';
import { OAUTH_CALLBACK_PATH } from '../../src/features/integrations/oauth-provider.js';
import { HEADER_ANSWER_SIGNATURE, type PeerVerb } from '../../src/peer/protocol.js';
import {
  createParty,
  type Instance,
  type Party,
  startInstance,
  statusesOf,
  TestClock,
} from '../contacts/support.js';
import { BACKENDS } from '../support/backends.js';
import { call, startTestService } from '../support/harness.js';
import { rawCall } from '../support/raw-call.js';
import { useStore } from '../support/service-lifecycle.js';
import { stranger } from '../support/stranger.js';

const HOUR = 3_600_000;

/** A signed `verb` call to `fingerprint` at `baseUrl`, from a fresh key that nobody serves. */
function strangerCall(
  baseUrl: string,
  fingerprint: string,
  now: number,
  verb: PeerVerb = 'request',
  headers: Record<string, string> = {},
): Promise<Response> {
  const caller = stranger();
  const body = JSON.stringify({ card: caller.card(now) });
  return caller.post(baseUrl, fingerprint, verb, body, now, randomBytes(18).toString('base64url'), headers);
}

/** A 429 of the spec's shape: the code, `retry_after` in the body equal to `Retry-After`. */
async function expectTooMany(response: Response, code: string): Promise<number> {
  const body = (await response.json()) as {
    error: { code: string; retry_after: number; request_id: string };
  };
  expect({ status: response.status, code: body.error.code }).toEqual({ status: 429, code });
  expect(body.error.request_id).toMatch(/^req_/);
  expect(body.error.retry_after).toBeGreaterThan(0);
  expect(response.headers.get('retry-after')).toBe(String(body.error.retry_after));
  return body.error.retry_after;
}

const pendingIn = async (party: Party) =>
  Object.values(await statusesOf(party)).filter((status) => status === 'pending_in').length;

/**
 * The doors a stranger opens without an account, attacked over HTTP: the peer protocol (per client
 * address and per identity, in the database, so a second instance on the same database sees the same
 * budgets), the cap on waiting contact requests, and the OAuth callback's state guesses. The clock stands
 * still unless a test moves it, so every budget is exact.
 */
describe.each(BACKENDS)('doors open to strangers are limited, on $name', (backend) => {
  const clock = new TestClock();
  const store = useStore(backend);
  let one: Instance;
  let twin: Instance;

  beforeAll(async () => {
    one = await startInstance(store, clock);
    twin = await startInstance(store, clock, one);
  });
  afterAll(async () => {
    await twin?.close();
    await one?.close();
  });

  it('limits calls to one identity from strangers; contacts it asked still get through', async () => {
    clock.advance(HOUR);
    const target = await createParty(one, 'target');
    // The strangers' budget is spent on the first instance...
    for (let i = 0; i < STRANGER_CALLS_PER_IDENTITY.capacity; i++) {
      const answer = await strangerCall(one.baseUrl, target.fingerprint, clock.at);
      expect(answer.status).toBe(200);
    }
    expect(await pendingIn(target)).toBe(STRANGER_CALLS_PER_IDENTITY.capacity);
    // ...and the second instance on the same database refuses the next one, signed by the target.
    const refused = await strangerCall(twin.baseUrl, target.fingerprint, clock.at);
    expect(refused.headers.get(HEADER_ANSWER_SIGNATURE)).toBeTruthy();
    const wait = await expectTooMany(refused, 'rate_limited');
    expect(wait).toBeGreaterThan(60);
    expect(await pendingIn(target)).toBe(STRANGER_CALLS_PER_IDENTITY.capacity);

    // A party the target asked is no stranger: its approval arrives and both sides are active.
    const other = await startInstance(await backend.open(), clock);
    try {
      // A real service asking now is told to wait: the target's 429 becomes its caller's 429.
      const asker = await createParty(other, 'asker');
      const asked = await call(other, 'POST', `/v1/identities/${asker.slug}/contacts`, {
        auth: { key: asker.key },
        body: { card: target.card },
      });
      expect({ status: asked.status, body: asked.body }).toMatchObject({
        status: 429,
        body: { error: { code: 'rate_limited', retry_after: wait } },
      });
      expect(asked.headers.get('retry-after')).toBe(String(wait));
      expect(await statusesOf(asker)).toEqual({});
      const friend = await createParty(other, 'friend');
      await target.api.contacts.request(target.slug, { card: friend.card });
      await friend.api.contacts.approve(friend.slug, target.fingerprint);
      expect((await statusesOf(target))[friend.fingerprint]).toBe('active');
    } finally {
      await other.close();
      await other.store.close();
    }
  });

  it('caps the requests one identity holds unanswered, and never evicts one', async () => {
    clock.advance(HOUR);
    const target = await createParty(one, 'inbox');
    let sent = 0;
    while (sent < PENDING_REQUESTS_CAP) {
      // The strangers' budget refills with time: the cap, not the rate, is what this test reaches.
      if (sent % STRANGER_CALLS_PER_IDENTITY.capacity === 0) clock.advance(HOUR);
      const answer = await strangerCall(one.baseUrl, target.fingerprint, clock.at);
      expect(answer.status).toBe(200);
      sent++;
    }
    clock.advance(HOUR);
    const before = await statusesOf(target);
    expect(Object.keys(before)).toHaveLength(PENDING_REQUESTS_CAP);
    const refused = await strangerCall(twin.baseUrl, target.fingerprint, clock.at);
    expect(refused.headers.get(HEADER_ANSWER_SIGNATURE)).toBeTruthy();
    expect(await expectTooMany(refused, 'requests_full')).toBe(PENDING_FULL_RETRY_SECONDS);
    expect(await statusesOf(target)).toEqual(before);
    // Answering one makes room for one more.
    const oldest = Object.keys(before)[0]!;
    await target.api.contacts.reject(target.slug, oldest);
    expect((await strangerCall(one.baseUrl, target.fingerprint, clock.at)).status).toBe(200);
    expect(await pendingIn(target)).toBe(PENDING_REQUESTS_CAP);
  });

  it('limits peer calls per client address, on every instance, whatever the forwarded headers say', async () => {
    clock.advance(HOUR);
    const target = await createParty(one, 'address');
    const card = () => fetch(`${one.baseUrl}/peer/v1/identities/${target.fingerprint}/card`);
    let answered = 0;
    for (;;) {
      const response = await card();
      if (response.status === 429) {
        await expectTooMany(response, 'rate_limited');
        break;
      }
      expect(response.status).toBe(200);
      answered++;
      expect(answered).toBeLessThanOrEqual(PEER_CALLS_PER_ADDRESS.capacity);
    }
    // The budget was partly spent by earlier tests of this file: it is the address's, not this target's.
    expect(answered).toBeGreaterThan(0);
    // A header naming another client changes nothing without a trusted proxy, on the twin as well.
    const forwarded = await strangerCall(twin.baseUrl, target.fingerprint, clock.at, 'request', {
      'x-forwarded-for': '203.0.113.9',
    });
    expect(forwarded.headers.get(HEADER_ANSWER_SIGNATURE)).toBeNull();
    await expectTooMany(forwarded, 'rate_limited');
    expect(await statusesOf(target)).toEqual({});
  });

  it('limits OAuth callbacks with unknown states per client address', async () => {
    clock.advance(HOUR);
    // A program can present the binding of any state it makes up: the guess is counted after that check.
    const callback = () => {
      const state = randomBytes(16).toString('hex');
      return fetch(`${one.baseUrl}${OAUTH_CALLBACK_PATH}?state=${state}&code=abc`, {
        headers: { cookie: `${OAUTH_BINDING_COOKIE}=${stateBinding(state)}` },
      });
    };
    for (let i = 0; i < OAUTH_STATE_GUESSES.capacity; i++) expect((await callback()).status).toBe(404);
    await expectTooMany(await callback(), 'rate_limited');
    // A person's browser gets the callback's page, as for its other refusals, still saying when to retry.
    const state = randomBytes(16).toString('hex');
    const page = await rawCall(one.baseUrl, 'GET', `${OAUTH_CALLBACK_PATH}?state=${state}&code=abc`, {
      headers: { 'sec-fetch-mode': 'navigate', cookie: `${OAUTH_BINDING_COOKIE}=${stateBinding(state)}` },
    });
    expect(page.status).toBe(429);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(page.headers['retry-after'])).toBeGreaterThan(0);
    expect(page.body).toContain('<code>rate_limited</code>');
  });
});

describe('behind a trusted proxy, peer calls are counted per client it names', () => {
  const store = useStore();

  it('spends the named client’s budget, not the proxy’s', async () => {
    const at = Date.now();
    const service = await startTestService(store, {
      now: () => at,
      extra: { trustedProxies: ['127.0.0.1'] },
    });
    try {
      const fingerprint = `sha256:${'1'.repeat(64)}`;
      const from = (client: string) =>
        fetch(`${service.baseUrl}/peer/v1/identities/${fingerprint}/card`, {
          headers: { 'x-forwarded-for': client },
        });
      for (let i = 0; i < PEER_CALLS_PER_ADDRESS.capacity; i++) {
        expect((await from('203.0.113.7')).status).toBe(404);
      }
      await expectTooMany(await from('203.0.113.7'), 'rate_limited');
      expect((await from('203.0.113.8')).status).toBe(404);
    } finally {
      await service.close();
    }
  });
});
