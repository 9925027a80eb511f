import { type BodyInput, toBodyInput } from '../body/raw-body';
import { WebhookVerificationError } from '../errors';
import { HEADER_NAMES } from '../headers/names';
import { readHeader } from '../headers/read-header';
import { type ResolvedVerifyOptions, resolveVerifyOptions } from '../options/verify-options';
import { parseSignatureHeader } from '../signature/parse-header';
import { describeSuspiciousSecrets } from '../signature/secret-hints';

/** Everything the HMAC comparison needs, checked and decoded. */
export interface SignatureCheck {
  readonly options: ResolvedVerifyOptions;
  readonly body: BodyInput;
  readonly timestamp: string;
  /** The `v1` values as received; the matchers decode them (a malformed one never matches). */
  readonly signatures: readonly string[];
}

function missingHeader(): WebhookVerificationError {
  return new WebhookVerificationError(
    'missing_header',
    'The X-Service-Signature header is missing or empty, so the delivery cannot be authenticated. ' +
      'If a proxy sits in front of this server, make sure it forwards the X-Service-* headers.',
  );
}

/** The signature header's text, from the value handed to `verifySignature`. */
export function requireSignatureValue(value: unknown): string {
  if (value === undefined || value === null) throw missingHeader();
  if (typeof value !== 'string') {
    throw new WebhookVerificationError(
      'malformed_header',
      `The X-Service-Signature header must be a string (got ${typeof value}).`,
    );
  }
  if (value.trim() === '') throw missingHeader();
  return value;
}

/** The signature header's text, from a whole set of request headers. */
export function readSignatureHeader(headers: unknown): string {
  const found = readHeader(headers, HEADER_NAMES.signature);
  switch (found.kind) {
    case 'absent':
      throw missingHeader();
    case 'many':
      throw new WebhookVerificationError(
        'malformed_header',
        `The request carries ${found.count} X-Service-Signature headers; exactly one is expected.`,
      );
    case 'not_text':
      throw new WebhookVerificationError('malformed_header', 'The X-Service-Signature header is not text.');
    case 'one':
      return requireSignatureValue(found.value);
  }
}

/** Options first (a set-up mistake beats a bad delivery), then the body, then the header. */
export function prepareSignatureCheck(
  body: unknown,
  readHeaderValue: () => string,
  options: unknown,
): SignatureCheck {
  const resolved = resolveVerifyOptions(options);
  const input = toBodyInput(body);
  const parsed = parseSignatureHeader(readHeaderValue());
  return { options: resolved, body: input, timestamp: parsed.timestamp, signatures: parsed.signatures };
}

export function noMatchingSignature(check: SignatureCheck): WebhookVerificationError {
  const secrets = check.options.secrets.length;
  const signatureCount = check.signatures.length;
  const parts = [
    `No v1 signature matches the body under the configured secret${secrets === 1 ? '' : 's'} ` +
      `(${signatureCount} v1 value${signatureCount === 1 ? '' : 's'}, ${secrets} secret${secrets === 1 ? '' : 's'} tried).`,
  ];
  parts.push(
    "Check that the secret is this endpoint's signing secret (after a rotation, pass [new, old] for 24 h) " +
      'and that the body is the exact raw bytes received, not re-serialised JSON.',
  );
  parts.push(...describeSuspiciousSecrets(check.options.secrets));
  return new WebhookVerificationError('no_matching_signature', parts.join(' '));
}
