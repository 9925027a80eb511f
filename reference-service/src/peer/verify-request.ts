import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../store/db.js';
import { type VerifiedCard, verifyCard } from './card.js';
import { verifyBytes } from './keys.js';
import {
  HEADER_NONCE,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  NONCE,
  REPLAY_WINDOW_MS,
  signingText,
  TIMESTAMP,
} from './protocol.js';
import { PeerRefusal } from './refusal.js';

export type PeerHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** A header sent once; a repeated one counts as missing. */
export function header(headers: PeerHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? undefined : value;
}

/**
 * Proves who is calling: the card in the body verifies, the request is inside the replay window, the
 * signature over method, path, time, nonce and body digest verifies with the card's key, and the nonce was
 * not used before by that caller. The nonce is recorded last, so a refused request does not burn it.
 */
export async function verifyPeerRequest(
  db: Queryable,
  request: FastifyRequest,
  rawBody: string,
  cardText: string,
  now: number,
): Promise<VerifiedCard> {
  const timestamp = header(request.headers, HEADER_TIMESTAMP);
  const nonce = header(request.headers, HEADER_NONCE);
  const signature = header(request.headers, HEADER_SIGNATURE);
  if (timestamp === undefined || nonce === undefined || signature === undefined) {
    throw new PeerRefusal(
      'bad_signature',
      `a peer request carries ${HEADER_TIMESTAMP}, ${HEADER_NONCE} and ${HEADER_SIGNATURE}`,
    );
  }
  if (!TIMESTAMP.test(timestamp) || !NONCE.test(nonce) || !/^[A-Za-z0-9_-]{1,128}$/.test(signature)) {
    throw new PeerRefusal('bad_signature', 'malformed peer signature headers');
  }
  if (Math.abs(now - Number(timestamp)) > REPLAY_WINDOW_MS) {
    throw new PeerRefusal('stale_request', 'the request time is outside the 300 second window');
  }
  const caller = verifyCard(cardText, now);
  if (typeof caller === 'string') throw new PeerRefusal('invalid_request', `caller card: ${caller}`);
  const path = request.url.split('?')[0] ?? '';
  const text = signingText(request.method, path, timestamp, nonce, rawBody);
  if (!verifyBytes(caller.publicKeyObject, Buffer.from(text, 'utf8'), Buffer.from(signature, 'base64url'))) {
    throw new PeerRefusal('bad_signature', 'the request signature does not verify with the caller card');
  }
  await db.query('DELETE FROM peer_nonces WHERE expires_at < $1', [now]);
  const fresh = await db.query<{ nonce: string }>(
    `INSERT INTO peer_nonces (fingerprint, nonce, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING nonce`,
    [caller.fingerprint, nonce, now + 2 * REPLAY_WINDOW_MS],
  );
  if (fresh.length === 0) throw new PeerRefusal('replayed', 'this request was already received');
  return caller;
}
