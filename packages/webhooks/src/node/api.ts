import { randomUUID } from 'node:crypto';
import type { BodyInput, RawBody } from '../body/raw-body';
import { nodeDigest, nodeMatches } from '../crypto/node-hmac';
import type { WebhookEvent } from '../events/types';
import type { HeaderInput } from '../headers/read-header';
import type { SignOptions } from '../options/sign-options';
import type { VerifyOptions } from '../options/verify-options';
import { makeCreateTestHeaders } from '../testing/test-headers';
import type { VerifyResult } from '../verify/result';
import { safeVerifyWith, signWith, verifySignatureWith, verifyWith } from '../verify/sync-api';

function nodeSignatureHex(secret: string, timestamp: string, body: BodyInput): string {
  return nodeDigest(secret, timestamp, body).toString('hex');
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
  verifySignatureWith(nodeMatches, body, signatureHeader, options);
}

/** Verifies a delivery and returns its typed event. Throws `WebhookVerificationError`. */
export function verify(body: RawBody, headers: HeaderInput, options: VerifyOptions): WebhookEvent {
  return verifyWith(nodeMatches, body, headers, options);
}

/** Like `verify`, but returns `{ ok, event }` or `{ ok: false, error }`; never throws, whatever it is given. */
export function safeVerify(body: unknown, headers: HeaderInput, options: VerifyOptions): VerifyResult {
  return safeVerifyWith(nodeMatches, body, headers, options);
}

/** The `X-Service-Signature` value for `body`: one `v1` per secret, in the order given. */
export function sign(body: RawBody, options: SignOptions): string {
  return signWith(nodeSignatureHex, body, options);
}

// The async forms exist so that code written for the Web build runs unchanged on Node. Here they use
// node:crypto, which is faster than Web Crypto for the small bodies webhooks carry.

export async function verifySignatureAsync(
  body: RawBody,
  signatureHeader: string | null | undefined,
  options: VerifyOptions,
): Promise<void> {
  verifySignature(body, signatureHeader, options);
}

export async function verifyAsync(
  body: RawBody,
  headers: HeaderInput,
  options: VerifyOptions,
): Promise<WebhookEvent> {
  return verify(body, headers, options);
}

export async function safeVerifyAsync(
  body: unknown,
  headers: HeaderInput,
  options: VerifyOptions,
): Promise<VerifyResult> {
  return safeVerify(body, headers, options);
}

export async function signAsync(body: RawBody, options: SignOptions): Promise<string> {
  return sign(body, options);
}

/** The four `X-Service-*` headers of a delivery of `body`, signed: for tests of your receiver. */
export const createTestHeaders = makeCreateTestHeaders(signAsync, randomUUID);
