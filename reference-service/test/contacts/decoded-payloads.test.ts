import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PeerVerb } from '../../src/peer/protocol.js';
import { BACKENDS } from '../support/backends.js';
import { call } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { stranger } from '../support/stranger.js';
import { createParty, type Instance, type Party, startInstance, TestClock } from './support.js';

let nonces = 0;
const nextNonce = () => `nonce-${String(++nonces).padStart(16, '0')}`;

/**
 * Issue 41, finding 3: a stranger's signed card whose `display_name` held a NUL reached the INSERT and was
 * answered 500, unauthenticated: the NUL check read the outer JSON only, and the card is base64url inside
 * it. Every decoded payload now meets the rules of a request body, and the names a person reads the rule
 * of names (finding 4).
 */
describe.each(BACKENDS)('payloads decoded from inside a request, on $name', (backend) => {
  const clock = new TestClock();
  const store = useStore(backend);
  let one: Instance;
  let alice: Party;

  beforeAll(async () => {
    one = await startInstance(store, clock);
    alice = await createParty(one, 'alice');
  });
  afterAll(async () => {
    await one?.close();
  });

  const contactRows = async () =>
    Number((await store.db.query<{ n: number | string }>('SELECT count(*) AS n FROM contacts'))[0]!.n);

  it('refuses a card holding a NUL, a hidden character or a blank name, on the peer side and the API side', async () => {
    const before = await contactRows();
    for (const fields of [
      { display_name: 'a\u0000b' },
      { endpoint: 'https://peer.example/\u0000/peer/v1' },
      { display_name: '\u202eevil\u202c' },
      { display_name: 'sandbox\u200b-bob' },
      { display_name: 'a\nb' },
      { display_name: 'line\u2028break' },
      { display_name: '   ' },
      { display_name: '\u3164' },
      { display_name: 'bob\u2800' },
      { endpoint: 'https://peer.example/ peer/v1' },
    ]) {
      const mallory = stranger();
      const card = mallory.card(clock.at, fields);
      const inbound = await mallory.send(
        one.baseUrl,
        alice.fingerprint,
        'request',
        JSON.stringify({ card }),
        clock.at,
        nextNonce(),
      );
      expect({ fields, status: inbound.status }).toEqual({ fields, status: 400 });
      expect(inbound.body).toMatchObject({ error: { code: 'invalid_request' } });
      const api = await call(one, 'POST', `/v1/identities/${alice.slug}/contacts`, {
        auth: { key: alice.key },
        body: { card },
      });
      expect({ fields, status: api.status }).toEqual({ fields, status: 400 });
      expect(api.body).toMatchObject({ error: { code: 'invalid_request' } });
    }
    expect(await contactRows()).toBe(before);
  });

  it('refuses a petname holding a hidden character, and keeps the one set before', async () => {
    const mallory = stranger();
    const asked = await mallory.send(
      one.baseUrl,
      alice.fingerprint,
      'request',
      JSON.stringify({ card: mallory.card(clock.at) }),
      clock.at,
      nextNonce(),
    );
    expect(asked.status).toBe(200);
    const path = `/v1/identities/${alice.slug}/contacts/${mallory.fingerprint}/petname`;
    const set = (petname: string) =>
      call(one, 'PATCH', path, { auth: { key: alice.key }, body: { petname } });
    expect((await set('Mallory (billing)')).status).toBe(200);
    for (const petname of ['\u202eevil\u202c', 'bob\u200b', 'a\nb', 'tab\there', '\ue000']) {
      const refused = await set(petname);
      expect({ petname, status: refused.status }).toEqual({ petname, status: 400 });
      expect(refused.body).toMatchObject({ error: { code: 'invalid_request' } });
    }
    const [row] = await store.db.query<{ petname: string }>(
      'SELECT petname FROM contacts WHERE fingerprint = $1',
      [mallory.fingerprint],
    );
    expect(row?.petname).toBe('Mallory (billing)');
    expect((await set('')).status).toBe(200);
  });

  it('answers hostile payloads under valid signatures with a 4xx or a 200, never a 5xx', async () => {
    // Mostly genuine messages with one hostile part, so that most reach the code behind the checks.
    const special = fc.constantFrom('\u0000', '\u0000', '\u202e', '\ud800', '\u200b', '\n', '\u2028', ' ');
    const text = fc.oneof(
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.string({ maxLength: 10 }), special, fc.string({ maxLength: 10 }))
          .map((parts) => parts.join('')),
      },
    );
    const anyJson = fc.oneof(text, fc.jsonValue({ maxDepth: 3 }));
    const cardFields = fc.oneof(
      { weight: 1, arbitrary: fc.constant({}) },
      { weight: 2, arbitrary: fc.record({ display_name: fc.oneof(text, anyJson) }) },
      { weight: 2, arbitrary: fc.record({ endpoint: text.map((path) => `http://127.0.0.1:1/${path}`) }) },
      { weight: 1, arbitrary: fc.record({ endpoint: anyJson }) },
      {
        weight: 1,
        arbitrary: fc.record({ issued_at: fc.oneof(fc.double(), fc.integer(), anyJson) }),
      },
      {
        weight: 1,
        arbitrary: fc.record({ expires_at: fc.oneof(fc.double(), fc.integer(), anyJson) }),
      },
      { weight: 1, arbitrary: fc.record({ fingerprint: anyJson, public_key: anyJson }) },
      { weight: 1, arbitrary: fc.dictionary(text, anyJson, { maxKeys: 2 }) },
    );
    const extras = fc.oneof(
      { weight: 2, arbitrary: fc.constant({}) },
      { weight: 1, arbitrary: fc.record({ note: anyJson }) },
      { weight: 1, arbitrary: fc.record({ tool: anyJson, arguments: anyJson }) },
      { weight: 1, arbitrary: fc.record({ tool: text, arguments: fc.dictionary(text, anyJson) }) },
      { weight: 1, arbitrary: fc.dictionary(text, anyJson, { maxKeys: 2 }) },
    );
    const verb = fc.oneof(
      { weight: 4, arbitrary: fc.constant<PeerVerb>('request') },
      {
        weight: 6,
        arbitrary: fc.constantFrom<PeerVerb>(
          'card',
          'accept',
          'reject',
          'remove',
          'tools/list',
          'tools/call',
        ),
      },
    );
    await fc.assert(
      fc.asyncProperty(cardFields, extras, verb, async (fields, more, chosen) => {
        const mallory = stranger();
        const before = await contactRows();
        const body = JSON.stringify({ card: mallory.card(clock.at, fields), ...more });
        const answer = await mallory.send(
          one.baseUrl,
          alice.fingerprint,
          chosen,
          body,
          clock.at,
          nextNonce(),
        );
        expect(answer.status).toBeGreaterThanOrEqual(200);
        expect(answer.status).toBeLessThan(500);
        // A refusal leaves nothing behind.
        if (answer.status >= 400) {
          expect(answer.body).toMatchObject({ error: { code: expect.any(String) } });
          expect(await contactRows()).toBe(before);
        }
      }),
      { numRuns: 150 },
    );
  });
});
