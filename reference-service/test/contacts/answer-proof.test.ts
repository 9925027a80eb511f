import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CARD_VALIDITY_MS, mintCard } from '../../src/peer/card.js';
import { generateIdentityKeyPair, privateKeyFromPkcs8, signBytes } from '../../src/peer/keys.js';
import {
  answerSigningText,
  HEADER_ANSWER_SIGNATURE,
  HEADER_ANSWER_TIMESTAMP,
  HEADER_NONCE,
  HEADER_TIMESTAMP,
} from '../../src/peer/protocol.js';
import { BACKENDS } from '../support/backends.js';
import { call, expectRefusal } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { createParty, type Instance, type Party, startInstance, TestClock } from './support.js';

type Mode = 'genuine' | 'other-key' | 'unsigned' | 'replay';

interface Recorded {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A party of the peer protocol played over a real socket: it holds a genuine key and card, and answers
 * `request` and `card` the way the test says: signed by its own key (genuine), by another key, unsigned,
 * or with the first answer it ever gave, replayed.
 */
async function startFakePeer() {
  const own = generateIdentityKeyPair();
  const stranger = generateIdentityKeyPair();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/peer/v1`;
  const now = Date.now();
  const card = mintCard(
    {
      fingerprint: own.fingerprint,
      public_key: own.publicKey,
      display_name: 'fake-peer',
      endpoint,
      issued_at: now,
      expires_at: now + CARD_VALIDITY_MS,
    },
    privateKeyFromPkcs8(own.privateKeyPkcs8),
  );
  const state = { mode: 'genuine' as Mode, received: 0, first: undefined as Recorded | undefined };

  const sign = (request: IncomingMessage, status: number, body: string, pkcs8: string) => {
    const at = String(Date.now());
    const text = answerSigningText(
      {
        fingerprint: own.fingerprint,
        path: request.url ?? '',
        requestTimestamp: String(request.headers[HEADER_TIMESTAMP]),
        requestNonce: String(request.headers[HEADER_NONCE]),
      },
      status,
      at,
      body,
    );
    const signature = signBytes(privateKeyFromPkcs8(pkcs8), Buffer.from(text, 'utf8')).toString('base64url');
    return { [HEADER_ANSWER_TIMESTAMP]: at, [HEADER_ANSWER_SIGNATURE]: signature };
  };

  server.on('request', (request, response) => {
    request.resume();
    request.on('end', () => {
      state.received += 1;
      const verb = request.url?.split('/').pop();
      const body = JSON.stringify(verb === 'card' ? { card } : { status: 'active' });
      let answer: Recorded;
      if (state.mode === 'replay' && state.first) answer = state.first;
      else {
        const headers =
          state.mode === 'unsigned'
            ? {}
            : sign(
                request,
                200,
                body,
                state.mode === 'other-key' ? stranger.privateKeyPkcs8 : own.privateKeyPkcs8,
              );
        answer = { status: 200, headers: { 'content-type': 'application/json', ...headers }, body };
      }
      state.first ??= answer;
      response.writeHead(answer.status, answer.headers).end(answer.body);
    });
  });
  return { state, card, fingerprint: own.fingerprint, close: () => new Promise((r) => server.close(r)) };
}

describe.each(BACKENDS)(
  'peer answers are believed only when the card’s key signed them, on $name',
  (backend) => {
    const clock = new TestClock();
    const store = useStore(backend);
    let instance: Instance;
    let alice: Party;
    let bob: Party;
    let peer: Awaited<ReturnType<typeof startFakePeer>>;

    beforeAll(async () => {
      instance = await startInstance(store, clock);
      alice = await createParty(instance, 'alice');
      bob = await createParty(instance, 'bob');
      peer = await startFakePeer();
    });
    afterAll(async () => {
      await peer?.close();
      await instance?.close();
    });

    const contactRows = async () =>
      store.db.query(
        'SELECT * FROM contacts WHERE identity_id IN ($1, $2) ORDER BY identity_id, fingerprint',
        [alice.identityId, bob.identityId],
      );
    const request = (party: Party, card: string) =>
      call(instance, 'POST', `/v1/identities/${party.slug}/contacts`, {
        auth: { key: party.key },
        body: { card },
      });

    it('refuses a forged card before calling anyone', async () => {
      const [prefix, payload, signature] = [
        peer.card.slice(0, peer.card.indexOf('.', 9) + 1),
        ...peer.card.slice(peer.card.indexOf('.', 9) + 1).split('.'),
      ] as [string, string, string];
      const fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
      const forged = `${prefix}${Buffer.from(JSON.stringify({ ...fields, display_name: 'someone else' })).toString('base64url')}.${signature}`;
      const before = await contactRows();
      const received = peer.state.received;
      expectRefusal(await request(alice, forged), 400, 'invalid_request');
      expect(peer.state.received).toBe(received);
      expect(await contactRows()).toEqual(before);
    });

    it('treats an answer signed by another key, or unsigned, as no answer: nothing changes', async () => {
      for (const mode of ['other-key', 'unsigned'] as const) {
        peer.state.mode = mode;
        const before = await contactRows();
        const received = peer.state.received;
        const refused = await request(alice, peer.card);
        expectRefusal(refused, 503, 'service_unavailable');
        expect(peer.state.received).toBe(received + 1);
        expect(await contactRows()).toEqual(before);
      }
    });

    it('believes the genuine answer, and refuses the same answer replayed to another request', async () => {
      peer.state.mode = 'genuine';
      peer.state.first = undefined;
      const accepted = await request(alice, peer.card);
      expect(accepted.status).toBe(201);
      expect(await contactRows()).toEqual([
        expect.objectContaining({
          identity_id: alice.identityId,
          fingerprint: peer.fingerprint,
          status: 'active',
        }),
      ]);

      // Bob asks the same party; what comes back is Alice's answer, byte for byte, signature and all.
      peer.state.mode = 'replay';
      const before = await contactRows();
      expectRefusal(await request(bob, peer.card), 503, 'service_unavailable');
      expect(await contactRows()).toEqual(before);
    });

    it('keeps a contact as it was when a refresh is answered by another key or by a replay', async () => {
      // A genuine refresh first: its answer (the card) is the one replayed below.
      peer.state.mode = 'genuine';
      peer.state.first = undefined;
      expect(await alice.api.contacts.refresh(alice.slug, peer.fingerprint)).toEqual({
        outcome: 'unchanged',
      });
      for (const mode of ['other-key', 'replay'] as const) {
        peer.state.mode = mode;
        const before = await contactRows();
        const refreshed = await alice.api.contacts.refresh(alice.slug, peer.fingerprint);
        expect(refreshed).toMatchObject({ outcome: 'unreachable' });
        expect(await contactRows()).toEqual(before);
      }
    });
  },
);
