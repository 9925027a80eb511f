import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';
import type { BodyInput } from '../body/raw-body';
import { DIGEST_BYTES, decodeSignatureInto } from '../signature/hex';
import { constantTimeEqual } from './constant-time';

// The synchronous path of the Web build: Web Crypto has no synchronous HMAC, so the SHA-256 here is
// @noble/hashes' audited pure-JavaScript one. The async functions keep using Web Crypto.

const encoder = new TextEncoder();
const DOT = new Uint8Array([0x2e]);

/** HMAC-SHA256 of `<t>.<body>`, fed in three pieces so the body is never copied. */
export function pureDigest(secret: string, timestamp: string, body: BodyInput): Uint8Array {
  return hmac
    .create(sha256, encoder.encode(secret))
    .update(encoder.encode(timestamp))
    .update(DOT)
    .update(typeof body === 'string' ? encoder.encode(body) : body)
    .digest();
}

/** True when any `v1` value equals the digest under any secret; each comparison is constant-time. */
export function pureMatches(
  secrets: readonly string[],
  timestamp: string,
  body: BodyInput,
  signatures: readonly string[],
): boolean {
  const candidate = new Uint8Array(DIGEST_BYTES);
  for (const secret of secrets) {
    const digest = pureDigest(secret, timestamp, body);
    for (const signature of signatures) {
      if (decodeSignatureInto(signature, candidate) && constantTimeEqual(digest, candidate)) return true;
    }
  }
  return false;
}
