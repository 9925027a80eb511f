import { type BodyInput, type RawBody, toBodyInput } from '../body/raw-body';
import type { WebhookEvent } from '../events/types';
import type { HeaderInput } from '../headers/read-header';
import { formatSignatureHeader, resolveSignOptions, type SignOptions } from '../options/sign-options';
import type { VerifyOptions } from '../options/verify-options';
import { completeVerification } from './complete';
import { failure, type VerifyResult } from './result';
import {
  noMatchingSignature,
  prepareSignatureCheck,
  readSignatureHeader,
  requireSignatureValue,
  type SignatureCheck,
} from './signature-steps';
import { checkTimestamp } from './timestamp';

// The synchronous functions of both builds, given the build's HMAC. Plain functions rather than a factory,
// so that a bundle importing one of them leaves the others (and zod) out.

/** True when any `v1` value matches the body under any secret (constant-time comparisons). */
export type SyncMatcher = (
  secrets: readonly string[],
  timestamp: string,
  body: BodyInput,
  signatures: readonly string[],
) => boolean;

/** The hex `v1` value of the body under one secret. */
export type SyncSigner = (secret: string, timestamp: string, body: BodyInput) => string;

function checkSignature(matches: SyncMatcher, check: SignatureCheck): void {
  if (!matches(check.options.secrets, check.timestamp, check.body, check.signatures)) {
    throw noMatchingSignature(check);
  }
  checkTimestamp(check.timestamp, check.options);
}

export function verifySignatureWith(
  matches: SyncMatcher,
  body: RawBody,
  signatureHeader: string | null | undefined,
  options: VerifyOptions,
): void {
  checkSignature(
    matches,
    prepareSignatureCheck(body, () => requireSignatureValue(signatureHeader), options),
  );
}

export function verifyWith(
  matches: SyncMatcher,
  body: RawBody,
  headers: HeaderInput,
  options: VerifyOptions,
): WebhookEvent {
  const check = prepareSignatureCheck(body, () => readSignatureHeader(headers), options);
  checkSignature(matches, check);
  return completeVerification(check.body, headers);
}

export function safeVerifyWith(
  matches: SyncMatcher,
  body: unknown,
  headers: HeaderInput,
  options: VerifyOptions,
): VerifyResult {
  try {
    return { ok: true, event: verifyWith(matches, body as RawBody, headers, options) };
  } catch (error) {
    return failure(error);
  }
}

export function signWith(signatureHex: SyncSigner, body: RawBody, options: SignOptions): string {
  const { secrets, timestamp } = resolveSignOptions(options);
  const input = toBodyInput(body);
  return formatSignatureHeader(
    timestamp,
    secrets.map((secret) => signatureHex(secret, timestamp, input)),
  );
}
