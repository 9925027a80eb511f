import { createHmac, timingSafeEqual } from 'node:crypto';
import type { BodyInput } from '../body/raw-body';
import { DIGEST_BYTES, SIGNATURE_HEX_LENGTH } from '../signature/hex';

/**
 * HMAC-SHA256 of `<t>.<body>`. The three pieces go to separate `update` calls: the body is never copied
 * into a concatenated string, and `t` is hashed as the text received.
 */
export function nodeDigest(secret: string, timestamp: string, body: BodyInput): Buffer {
  return createHmac('sha256', secret).update(timestamp).update('.').update(body).digest();
}

// Reused by every call: the matcher is synchronous, so no two calls can interleave on it.
const candidate = Buffer.alloc(DIGEST_BYTES);

/**
 * Node's hex decoder stops at the first character that is not hex and returns how many bytes it wrote, so
 * 64 characters decode to 32 bytes exactly when every one of them is a hex digit; anything else never
 * matches.
 */
function decodeCandidate(signature: string): boolean {
  return signature.length === SIGNATURE_HEX_LENGTH && candidate.write(signature, 'hex') === DIGEST_BYTES;
}

/** True when any `v1` value equals the digest under any secret; each comparison is constant-time. */
export function nodeMatches(
  secrets: readonly string[],
  timestamp: string,
  body: BodyInput,
  signatures: readonly string[],
): boolean {
  for (const secret of secrets) {
    const digest = nodeDigest(secret, timestamp, body);
    for (const signature of signatures) {
      if (decodeCandidate(signature) && timingSafeEqual(digest, candidate)) return true;
    }
  }
  return false;
}
