import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PEER_BODY_BYTES } from '../../src/peer/protocol.js';
import { BACKENDS } from '../support/backends.js';
import { startFakePeer } from '../support/fake-peer.js';
import { call, expectRefusal } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { createParty, type Instance, type Party, startInstance, TestClock } from './support.js';

const LEVELS = 20_000;
const deep = `${'['.repeat(LEVELS)}${']'.repeat(LEVELS)}`;

/**
 * A second look at issue 41: a contact's peer answered tools/list and tools/call with a value nested
 * twenty thousand levels deep (well under the answer's size cap); the service parsed it and then failed
 * to serialise its own reply, a 500. Every peer answer is now bounded in depth before it is parsed, and a
 * deeper one is the peer answering badly, as an answer that is not JSON is.
 */
describe.each(BACKENDS)('a peer answer nested too deep, on $name', (backend) => {
  const clock = new TestClock();
  const store = useStore(backend);
  let one: Instance;
  let alice: Party;
  let peer: Awaited<ReturnType<typeof startFakePeer>>;
  const answers: Record<string, string> = {
    request: JSON.stringify({ status: 'active' }),
    'tools/list': `{"tools":[{"name":"t","description":"d","input_schema":{"x":${deep}}}]}`,
    'tools/call': `{"ok":true,"result":${deep}}`,
  };

  beforeAll(async () => {
    one = await startInstance(store, clock);
    alice = await createParty(one, 'alice');
    peer = await startFakePeer(clock.now, (verb) => answers[verb] ?? '{}');
  });
  afterAll(async () => {
    await peer?.close();
    await one?.close();
  });

  it('answers the listing and the call as an unreadable peer answer, never a 500', async () => {
    for (const text of Object.values(answers)) {
      expect(Buffer.byteLength(text)).toBeLessThan(MAX_PEER_BODY_BYTES);
    }
    const auth = { key: alice.key };
    const contacts = `/v1/identities/${alice.slug}/contacts`;
    const requested = await call(one, 'POST', contacts, { auth, body: { card: peer.card } });
    expect(requested).toMatchObject({ status: 201, body: { status: 'active' } });

    const listed = await call(one, 'GET', `${contacts}/${peer.fingerprint}/tools`, { auth });
    expectRefusal(listed, 503, 'service_unavailable');
    expect(listed.text).toContain('nests deeper than');
    const called = await call(one, 'POST', `${contacts}/${peer.fingerprint}/call`, {
      auth,
      body: { tool: 't', arguments: {} },
    });
    expectRefusal(called, 503, 'service_unavailable');
    expect(called.text).toContain('nests deeper than');

    // A shallow answer from the same peer is read as before.
    answers['tools/call'] = JSON.stringify({ ok: true, result: [[['fine']]] });
    const fine = await call(one, 'POST', `${contacts}/${peer.fingerprint}/call`, {
      auth,
      body: { tool: 't', arguments: {} },
    });
    expect(fine).toMatchObject({ status: 200, body: { ok: true, result: [[['fine']]] } });
  });
});
