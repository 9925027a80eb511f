import type { BodyInput, RawBody } from '../body/raw-body';
import { pureDigest, pureMatches } from '../crypto/pure-hmac';
import type { WebhookEvent } from '../events/types';
import type { HeaderInput } from '../headers/read-header';
import type { SignOptions } from '../options/sign-options';
import type { VerifyOptions } from '../options/verify-options';
import { encodeHex } from '../signature/hex';
import type { VerifyResult } from '../verify/result';
import { safeVerifyWith, signWith, verifySignatureWith, verifyWith } from '../verify/sync-api';

// The synchronous API of the Web build, over a pure-JavaScript SHA-256 (Web Crypto is asynchronous only),
// so the README's first snippet runs as written on Workers, Deno and the edge.

function pureSignatureHex(secret: string, timestamp: string, body: BodyInput): string {
  return encodeHex(pureDigest(secret, timestamp, body));
}

/**
 * Checks the signature and the timestamp of a raw body against the `X-Service-Signature` value, and
 * nothing else. Throws `WebhookVerificationError`.
 */
export function verifySignature(
  body: RawBody,
  signatureHeader: string | null | undefined,
  options: VerifyOptions,
): void {
  verifySignatureWith(pureMatches, body, signatureHeader, options);
}

/** Verifies a delivery and returns its typed event. Throws `WebhookVerificationError`. */
export function verify(body: RawBody, headers: HeaderInput, options: VerifyOptions): WebhookEvent {
  return verifyWith(pureMatches, body, headers, options);
}

/** Like `verify`, but returns `{ ok, event }` or `{ ok: false, error }`; never throws, whatever it is given. */
export function safeVerify(body: unknown, headers: HeaderInput, options: VerifyOptions): VerifyResult {
  return safeVerifyWith(pureMatches, body, headers, options);
}

/** The `X-Service-Signature` value for `body`: one `v1` per secret, in the order given. */
export function sign(body: RawBody, options: SignOptions): string {
  return signWith(pureSignatureHex, body, options);
}
