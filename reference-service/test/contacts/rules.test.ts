import { IdempotencyMismatchError, RateLimitError } from '@svc-kit/client';
import { describe, expect, it } from 'vitest';
import { CARD_VALIDITY_MS, mintCard } from '../../src/peer/card.js';
import { generateIdentityKeyPair, privateKeyFromPkcs8, signBytes } from '../../src/peer/keys.js';
import { signingText } from '../../src/peer/protocol.js';
import { BACKENDS } from '../support/backends.js';
import { call, createTenant, expectRefusal } from '../support/harness.js';
import {
  befriend,
  createParty,
  type Instance,
  type Party,
  startInstance,
  statusesOf as statusesOfRaw,
  TestClock,
  useTwoInstances,
} from './support.js';

/** A card of a party nobody serves: its endpoint is a closed loopback port. */
function strangerCard(now: number, options: { expiresAt?: number } = {}): string {
  const pair = generateIdentityKeyPair();
  return mintCard(
    {
      fingerprint: pair.fingerprint,
      public_key: pair.publicKey,
      display_name: 'stranger',
      endpoint: 'http://127.0.0.1:1/peer/v1',
      issued_at: now - 1000,
      expires_at: options.expiresAt ?? now + CARD_VALIDITY_MS,
    },
    privateKeyFromPkcs8(pair.privateKeyPkcs8),
  );
}

const path = (party: Party, suffix = '') => `/v1/identities/${party.slug}/contacts${suffix}`;

describe.each(BACKENDS)('contact rules on $name', (backend) => {
  const clock = new TestClock();
  let one: Instance;
  let two: Instance;
  useTwoInstances(backend, clock, (first, second) => {
    one = first;
    two = second;
  });

  it('refuses a forged, an expired, a malformed and its own card before storing anything', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    const [prefix, version, body, signature] = bob.card.split('.');
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as Record<string, unknown>;
    payload.endpoint = 'http://127.0.0.1:9/peer/v1';
    const forged = [
      prefix,
      version,
      Buffer.from(JSON.stringify(payload)).toString('base64url'),
      signature,
    ].join('.');
    const cases: [string, RegExp][] = [
      [forged, /signature does not verify/],
      [strangerCard(clock.at, { expiresAt: clock.at - 1 }), /expired/],
      ['svc-card.v1.nope', /svc-card\.v1\.<payload>\.<signature>/],
      [alice.card, /own card/],
    ];
    for (const [card, message] of cases) {
      const result = await call(one, 'POST', path(alice), { auth: { key: alice.key }, body: { card } });
      expectRefusal(result, 400, 'invalid_request');
      expect((result.body as { error: { message: string } }).error.message).toMatch(message);
    }
    expect((await alice.api.contacts.list(alice.slug)).contacts).toEqual([]);
    expect((await bob.api.contacts.list(bob.slug)).contacts).toEqual([]);
  });

  it('answers 400 to every bad input', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    await befriend(alice, bob);
    const auth = { key: alice.key };
    const B = `/${bob.fingerprint}`;
    const bad: [string, string, unknown][] = [
      ['POST', '', { card: '' }],
      ['POST', '', { card: 'x'.repeat(16385) }],
      ['POST', '', { card: bob.card, note: 'n'.repeat(1025) }],
      ['POST', '', { card: bob.card, extra: true }],
      ['POST', '', {}],
      ['PATCH', B, { preset: 'friend' }],
      ['PATCH', B, { permissions: Array.from({ length: 65 }, (_, i) => `p${i}`) }],
      ['PATCH', B, { permissions: ['p'.repeat(97)] }],
      ['PATCH', `${B}/petname`, { petname: 'p'.repeat(65) }],
      ['PATCH', `${B}/petname`, {}],
      ['PATCH', `${B}/trust`, { trust: 'everything' }],
      ['POST', `${B}/approve`, { preset: 'friend' }],
      ['POST', `${B}/refresh`, { force: true }],
      ['POST', `${B}/call`, { tool: '' }],
      ['POST', `${B}/call`, { tool: 't', arguments: [1] }],
      ['POST', `${B}/block`, { why: 'no' }],
    ];
    for (const [method, suffix, body] of bad) {
      expectRefusal(await call(one, method, path(alice, suffix), { auth, body }), 400, 'invalid_request');
    }
    expectRefusal(await call(one, 'GET', `${path(alice)}?status=friends`, { auth }), 400, 'invalid_request');
    expectRefusal(await call(one, 'GET', path(alice, '/sha256:00'), { auth }), 404, 'not_found');
    expectRefusal(await call(one, 'GET', `/v1/identities/nobody/contacts`, { auth }), 404, 'not_found');
  });

  it('needs service:contacts:trust to set trust', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    await befriend(alice, bob);
    clock.advance(10_000);
    const tenant = await createTenant(one.ctx, {
      scopes: ['service:contacts:manage', 'service:contacts:read'],
    });
    // The permission is checked before the identity is looked up: no trust scope, no further.
    expectRefusal(
      await call(one, 'PATCH', path(alice, `/${bob.fingerprint}/trust`), {
        auth: { key: tenant.key },
        body: { trust: 'may_instruct' },
      }),
      403,
      'forbidden',
    );
  });

  it('limits outbound calls per contact to a burst of 10, then 1 per second, with exact 429 bodies', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    await befriend(alice, bob);
    clock.advance(10_000);
    for (let i = 0; i < 10; i++) await alice.api.contacts.listTools(alice.slug, bob.fingerprint);
    const limited = await call(one, 'GET', path(alice, `/${bob.fingerprint}/tools`), {
      auth: { key: alice.key },
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect(limited.body).toEqual({
      error: {
        code: 'rate_limited',
        message: 'the outbound call budget for this contact is spent; retry after 1 seconds',
        request_id: limited.headers.get('x-request-id'),
        retry_after: 1,
      },
    });
    // every outbound operation spends from the same bucket
    const error = await alice.api.contacts.refresh(alice.slug, bob.fingerprint).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(1);
    clock.advance(1000);
    expect(await alice.api.contacts.listTools(alice.slug, bob.fingerprint)).toEqual({ tools: [] });
    await expect(alice.api.contacts.listTools(alice.slug, bob.fingerprint)).rejects.toBeInstanceOf(
      RateLimitError,
    );
  });

  it('shares a budget between two instances on one database', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    await befriend(alice, bob);
    clock.advance(10_000);
    const twin = await startInstance(one.store, clock, one);
    try {
      for (let i = 0; i < 10; i++) {
        const instance = i % 2 === 0 ? one : twin;
        const result = await call(instance, 'GET', path(alice, `/${bob.fingerprint}/tools`), {
          auth: { key: alice.key },
        });
        expect(result.status).toBe(200);
      }
      const results = await Promise.all(
        [one, twin].map((instance) =>
          call(instance, 'GET', path(alice, `/${bob.fingerprint}/tools`), { auth: { key: alice.key } }),
        ),
      );
      expect(results.map((result) => result.status)).toEqual([429, 429]);
    } finally {
      await twin.close();
    }
  });

  it('limits the identity aggregate to a burst of 30 across contacts', async () => {
    const alice = await createParty(one, 'alice');
    const friends: Party[] = [];
    for (let i = 0; i < 4; i++) {
      const friend = await createParty(two, `friend${i}`);
      await befriend(alice, friend);
      friends.push(friend);
    }
    clock.advance(10_000);
    for (const friend of friends.slice(0, 3)) {
      for (let i = 0; i < 10; i++) await alice.api.contacts.listTools(alice.slug, friend.fingerprint);
    }
    const limited = await call(one, 'GET', path(alice, `/${friends[3]!.fingerprint}/tools`), {
      auth: { key: alice.key },
    });
    expectRefusal(limited, 429, 'rate_limited');
    expect(limited.body).toMatchObject({
      error: {
        message: 'the outbound call budget for this identity is spent; retry after 1 seconds',
        retry_after: 1,
      },
    });
    expect(limited.headers.get('retry-after')).toBe('1');
  });

  it('limits requests to strangers to 20 per hour', async () => {
    const alice = await createParty(one, 'alice');
    clock.advance(10_000);
    for (let i = 0; i < 20; i++) {
      // Nobody serves these cards: the request fails, but it was an outbound call to a stranger.
      const result = await call(one, 'POST', path(alice), {
        auth: { key: alice.key },
        body: { card: strangerCard(clock.at) },
      });
      expectRefusal(result, 503, 'service_unavailable');
      clock.advance(1000);
    }
    const limited = await call(one, 'POST', path(alice), {
      auth: { key: alice.key },
      body: { card: strangerCard(clock.at) },
    });
    expect(limited.status).toBe(429);
    // 20 seconds have refilled 20/3600 × 20 s of a token; the rest of one token takes 160 more seconds.
    expect(limited.body).toEqual({
      error: {
        code: 'rate_limited',
        message:
          'the outbound call budget for calls to parties that are not active contacts of this identity is spent; retry after 160 seconds',
        request_id: limited.headers.get('x-request-id'),
        retry_after: 160,
      },
    });
    expect(limited.headers.get('retry-after')).toBe('160');
    clock.advance(160_000);
    const again = await call(one, 'POST', path(alice), {
      auth: { key: alice.key },
      body: { card: strangerCard(clock.at) },
    });
    expect(again.status).toBe(503);
  });

  it('spends the strangers budget on every call to a party that is not an active contact', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    clock.advance(10_000);
    // 20 requests to the same party, which never answers them: each one is a call to a stranger.
    for (let i = 0; i < 20; i++) {
      const asked = await call(one, 'POST', path(alice), {
        auth: { key: alice.key },
        body: { card: bob.card },
      });
      expect(asked.status).toBe(201);
      clock.advance(1000);
    }
    const limited = await call(one, 'POST', path(alice), {
      auth: { key: alice.key },
      body: { card: bob.card },
    });
    expectRefusal(limited, 429, 'rate_limited');
    expect(limited.body).toMatchObject({
      error: { message: expect.stringContaining('not active contacts') },
    });
    // Answering the request is also a call to a party that is not (yet) an active contact of bob's...
    expect((await bob.api.contacts.approve(bob.slug, alice.fingerprint)).status).toBe('approved');
    // ...but once they are contacts, calls no longer count: alice's hourly budget is still spent, yet
    // her tools call to the active contact goes through.
    expect((await alice.api.contacts.listTools(alice.slug, bob.fingerprint)).tools).toEqual([]);
  });

  it('removal by the other side takes the pin off both sides, even a silent block', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    await befriend(alice, bob);
    expect(await alice.api.contacts.block(alice.slug, bob.fingerprint)).toMatchObject({ status: 'blocked' });
    expect(await bob.api.contacts.remove(bob.slug, alice.fingerprint)).toMatchObject({ notified: true });
    expect(await statusesOfRaw(alice)).toEqual({});
    expect(await statusesOfRaw(bob)).toEqual({});
  });

  it('honours Idempotency-Key on approve, reject, tell-accepted and block', async () => {
    const alice = await createParty(one, 'alice');
    const bob = await createParty(two, 'bob');
    await alice.api.contacts.request(alice.slug, { card: bob.card });
    const approvePath = path(bob, `/${alice.fingerprint}/approve`);
    const auth = { key: bob.key };
    const first = await call(two, 'POST', approvePath, {
      auth,
      body: { preset: 'close' },
      headers: { 'idempotency-key': 'k1' },
    });
    expect(first.status).toBe(200);
    const again = await call(two, 'POST', approvePath, {
      auth,
      body: { preset: 'close' },
      headers: { 'idempotency-key': 'k1' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const mismatch = await call(two, 'POST', approvePath, {
      auth,
      body: { preset: 'muted' },
      headers: { 'idempotency-key': 'k1' },
    });
    expectRefusal(mismatch, 422, 'idempotency_mismatch');
    // without a key a second approve finds no waiting request
    expectRefusal(await call(two, 'POST', approvePath, { auth, body: {} }), 404, 'not_found');

    const told = await bob.api.contacts.notifyAcceptance(bob.slug, alice.fingerprint, {
      idempotencyKey: 'k2',
    });
    expect(
      await bob.api.contacts.notifyAcceptance(bob.slug, alice.fingerprint, { idempotencyKey: 'k2' }),
    ).toEqual(told);
    await expect(
      bob.api.contacts.block(bob.slug, alice.fingerprint, { idempotencyKey: 'k2' }),
    ).rejects.toBeInstanceOf(IdempotencyMismatchError);

    const blocked = await bob.api.contacts.block(bob.slug, alice.fingerprint, { idempotencyKey: 'k3' });
    expect(await bob.api.contacts.block(bob.slug, alice.fingerprint, { idempotencyKey: 'k3' })).toEqual(
      blocked,
    );

    const carol = await createParty(one, 'carol');
    await carol.api.contacts.request(carol.slug, { card: bob.card });
    const rejected = await bob.api.contacts.reject(bob.slug, carol.fingerprint, { idempotencyKey: 'k4' });
    expect(rejected).toEqual({ status: 'rejected', fingerprint: carol.fingerprint, notified: true });
    expect(await bob.api.contacts.reject(bob.slug, carol.fingerprint, { idempotencyKey: 'k4' })).toEqual(
      rejected,
    );

    // A final refusal is the first answer: the same call replays it, another call with the key is a 422.
    const missing = path(bob, `/sha256:${'0'.repeat(64)}/reject`);
    expectRefusal(
      await call(two, 'POST', missing, { auth, headers: { 'idempotency-key': 'k5' } }),
      404,
      'not_found',
    );
    const replayed = await call(two, 'POST', missing, { auth, headers: { 'idempotency-key': 'k5' } });
    expectRefusal(replayed, 404, 'not_found');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    const other = await call(two, 'POST', path(bob, `/${carol.fingerprint}/block`), {
      auth,
      headers: { 'idempotency-key': 'k5' },
    });
    expectRefusal(other, 422, 'idempotency_mismatch');
  });

  it('authenticates peer calls: unsigned, replayed and stale requests are refused', async () => {
    const alice = await createParty(one, 'alice');
    const url = `${one.baseUrl}/peer/v1/identities/${alice.fingerprint}/request`;
    const unsigned = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card: strangerCard(clock.at) }),
    });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({ error: { code: 'bad_signature' } });
    // A correctly signed request is accepted once; the same bytes again are a replay.
    const pair = generateIdentityKeyPair();
    const key = privateKeyFromPkcs8(pair.privateKeyPkcs8);
    const card = mintCard(
      {
        fingerprint: pair.fingerprint,
        public_key: pair.publicKey,
        display_name: 'signed stranger',
        endpoint: 'http://127.0.0.1:1/peer/v1',
        issued_at: clock.at,
        expires_at: clock.at + CARD_VALIDITY_MS,
      },
      key,
    );
    const signed = (timestamp: number, nonce: string) => {
      const body = JSON.stringify({ card });
      const text = signingText('POST', new URL(url).pathname, String(timestamp), nonce, body);
      return fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'svc-peer-timestamp': String(timestamp),
          'svc-peer-nonce': nonce,
          'svc-peer-signature': signBytes(key, Buffer.from(text)).toString('base64url'),
        },
        body,
      });
    };
    const accepted = await signed(clock.at, 'nonce-0123456789abcdef');
    expect(await accepted.json()).toEqual({ status: 'pending' });
    const replayed = await signed(clock.at, 'nonce-0123456789abcdef');
    expect({ status: replayed.status, body: await replayed.json() }).toMatchObject({
      status: 401,
      body: { error: { code: 'replayed' } },
    });
    const stale = await signed(clock.at - 301_000, 'nonce-fedcba9876543210');
    expect({ status: stale.status, body: await stale.json() }).toMatchObject({
      status: 401,
      body: { error: { code: 'stale_request' } },
    });
    expect(await statusesOfRaw(alice)).toEqual({ [pair.fingerprint]: 'pending_in' });
    const unknown = await fetch(`${one.baseUrl}/peer/v1/identities/sha256:${'1'.repeat(64)}/card`);
    expect(unknown.status).toBe(404);
  });
});
