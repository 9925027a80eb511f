import { randomBytes } from 'node:crypto';
import { CARD_VALIDITY_MS, mintCard } from '../../src/peer/card.js';
import { generateIdentityKeyPair, privateKeyFromPkcs8, signBytes } from '../../src/peer/keys.js';
import { type PeerVerb, signingText } from '../../src/peer/protocol.js';

/**
 * A stranger to the peer protocol: a key pair of its own, no instance behind its endpoint; it signs any card
 * and any call, hostile or not, as a real peer would.
 */
export function stranger() {
  const pair = generateIdentityKeyPair();
  const key = privateKeyFromPkcs8(pair.privateKeyPkcs8);
  return {
    fingerprint: pair.fingerprint,
    /** A card holding `fields` over a genuine payload, validly signed whatever they say. */
    card(now: number, fields: Record<string, unknown> = {}) {
      const payload = {
        fingerprint: pair.fingerprint,
        public_key: pair.publicKey,
        display_name: 'stranger',
        endpoint: 'http://127.0.0.1:1/peer/v1',
        issued_at: now,
        expires_at: now + CARD_VALIDITY_MS,
        ...fields,
      };
      return mintCard(payload as Parameters<typeof mintCard>[0], key);
    },
    /** A peer call to `target` whose signature verifies over exactly `body`, with any `headers` besides. */
    post(
      baseUrl: string,
      target: string,
      verb: PeerVerb,
      body: string,
      now: number,
      nonce: string,
      headers: Record<string, string> = {},
    ): Promise<Response> {
      const path = `/peer/v1/identities/${target}/${verb}`;
      const text = signingText('POST', path, String(now), nonce, body);
      return fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'svc-peer-timestamp': String(now),
          'svc-peer-nonce': nonce,
          'svc-peer-signature': signBytes(key, Buffer.from(text, 'utf8')).toString('base64url'),
        },
        body,
      });
    },
    /** A contact request carrying its own card, under a fresh nonce. */
    request(baseUrl: string, target: string, now: number): Promise<Response> {
      const body = JSON.stringify({ card: this.card(now) });
      return this.post(baseUrl, target, 'request', body, now, randomBytes(16).toString('hex'));
    },
    /** The same call, answered as its status and parsed body. */
    async send(baseUrl: string, target: string, verb: PeerVerb, body: string, now: number, nonce: string) {
      const answer = await this.post(baseUrl, target, verb, body, now, nonce);
      return { status: answer.status, body: (await answer.json()) as unknown };
    },
  };
}
