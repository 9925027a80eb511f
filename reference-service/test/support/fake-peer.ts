import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CARD_VALIDITY_MS, mintCard } from '../../src/peer/card.js';
import { generateIdentityKeyPair, privateKeyFromPkcs8, signBytes } from '../../src/peer/keys.js';
import {
  answerSigningText,
  HEADER_ANSWER_SIGNATURE,
  HEADER_ANSWER_TIMESTAMP,
  HEADER_NONCE,
  HEADER_TIMESTAMP,
} from '../../src/peer/protocol.js';

/**
 * A peer on a real socket whose answers are genuinely signed by the key its card names, whatever they say:
 * `answer(verb)` gives the body text of the 200 it sends for each verb (`request`, `tools/list`…).
 */
export async function startFakePeer(now: () => number, answer: (verb: string) => string) {
  const own = generateIdentityKeyPair();
  const key = privateKeyFromPkcs8(own.privateKeyPkcs8);
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/peer/v1`;
  const card = mintCard(
    {
      fingerprint: own.fingerprint,
      public_key: own.publicKey,
      display_name: 'fake-peer',
      endpoint,
      issued_at: now(),
      expires_at: now() + CARD_VALIDITY_MS,
    },
    key,
  );
  server.on('request', (request, response) => {
    request.resume();
    request.on('end', () => {
      const path = request.url ?? '';
      const verb = path.slice(path.indexOf(own.fingerprint) + own.fingerprint.length + 1);
      const body = answer(verb);
      const at = String(now());
      const text = answerSigningText(
        {
          fingerprint: own.fingerprint,
          path,
          requestTimestamp: String(request.headers[HEADER_TIMESTAMP]),
          requestNonce: String(request.headers[HEADER_NONCE]),
        },
        200,
        at,
        body,
      );
      response
        .writeHead(200, {
          'content-type': 'application/json',
          [HEADER_ANSWER_TIMESTAMP]: at,
          [HEADER_ANSWER_SIGNATURE]: signBytes(key, Buffer.from(text, 'utf8')).toString('base64url'),
        })
        .end(body);
    });
  });
  return {
    card,
    fingerprint: own.fingerprint,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
