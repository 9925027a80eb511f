import { type RawBody, toBodyInput } from '../body/raw-body';
import { webDigest, webMatches } from '../crypto/web-hmac';
import type { WebhookEvent } from '../events/types';
import type { HeaderInput } from '../headers/read-header';
import { formatSignatureHeader, resolveSignOptions, type SignOptions } from '../options/sign-options';
import type { VerifyOptions } from '../options/verify-options';
import { encodeHex } from '../signature/hex';
import { makeCreateTestHeaders } from '../testing/test-headers';
import { completeVerification } from '../verify/complete';
import { failure, type VerifyResult } from '../verify/result';
import {
  noMatchingSignature,
  prepareSignatureCheck,
  readSignatureHeader,
  requireSignatureValue,
  type SignatureCheck,
} from '../verify/signature-steps';
import { checkTimestamp } from '../verify/timestamp';

async function checkSignature(check: SignatureCheck): Promise<void> {
  if (!(await webMatches(check.options.secrets, check.timestamp, check.body, check.signatures))) {
    throw noMatchingSignature(check);
  }
  checkTimestamp(check.timestamp, check.options);
}

/** Checks the signature and timestamp only. Rejects with `WebhookVerificationError`. */
export async function verifySignatureAsync(
  body: RawBody,
  signatureHeader: string | null | undefined,
  options: VerifyOptions,
): Promise<void> {
  await checkSignature(prepareSignatureCheck(body, () => requireSignatureValue(signatureHeader), options));
}

/** Verifies a delivery and resolves to its typed event. Rejects with `WebhookVerificationError`. */
export async function verifyAsync(
  body: RawBody,
  headers: HeaderInput,
  options: VerifyOptions,
): Promise<WebhookEvent> {
  const check = prepareSignatureCheck(body, () => readSignatureHeader(headers), options);
  await checkSignature(check);
  return completeVerification(check.body, headers);
}

/** Like `verifyAsync`, but resolves to `{ ok, event }` or `{ ok: false, error }`; never rejects. */
export async function safeVerifyAsync(
  body: unknown,
  headers: HeaderInput,
  options: VerifyOptions,
): Promise<VerifyResult> {
  try {
    return { ok: true, event: await verifyAsync(body as RawBody, headers, options) };
  } catch (error) {
    return failure(error);
  }
}

/** The `X-Service-Signature` value for `body`: one `v1` per secret, in the order given. */
export async function signAsync(body: RawBody, options: SignOptions): Promise<string> {
  const { secrets, timestamp } = resolveSignOptions(options);
  const input = toBodyInput(body);
  const signatures: string[] = [];
  for (const secret of secrets) signatures.push(encodeHex(await webDigest(secret, timestamp, input)));
  return formatSignatureHeader(timestamp, signatures);
}

function randomId(): string {
  return globalThis.crypto.randomUUID();
}

/** The four `X-Service-*` headers of a delivery of `body`, signed: for tests of your receiver. */
export const createTestHeaders = makeCreateTestHeaders(signAsync, randomId);
