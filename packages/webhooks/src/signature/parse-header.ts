import { WebhookVerificationError } from '../errors';
import { isSignatureHex } from './hex';

/**
 * Bounds that keep parsing linear and cheap whatever arrives. A real header is about 150 characters: `t`
 * and one or two `v1` values; the room left is for schemes added later, which are skipped.
 */
export const SIGNATURE_HEADER_LIMITS = { maxLength: 4096, maxParts: 16, maxTimestampDigits: 15 } as const;

export interface ParsedSignatureHeader {
  /** `t` exactly as received: the signed text starts with it, so it is never re-formatted. */
  timestamp: string;
  /**
   * Every `v1` value, in header order. At least one is 64 hex digits; any other is kept but can never
   * match (so a header that also carries a future, longer format still verifies).
   */
  signatures: string[];
}

const FORMAT = 'expected t=<unix seconds>,v1=<hex>[,v1=<hex>]';

function malformed(detail: string): WebhookVerificationError {
  return new WebhookVerificationError(
    'malformed_header',
    `The X-Service-Signature header is malformed: ${detail} (${FORMAT}). Pass the header exactly as received.`,
  );
}

function isOptionalWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function isDigits(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

/**
 * Splits `t=…,v1=…[,v1=…]`. Unknown schemes (`v0=`, `v2=`) are skipped so the service can add one without
 * breaking receivers. Throws `malformed_header` on anything else that is wrong, including a header in which
 * no `v1` is 64 hex digits (truncated, base64, empty).
 */
export function parseSignatureHeader(value: string): ParsedSignatureHeader {
  if (typeof value !== 'string') throw malformed('the value is not text');
  if (value.length > SIGNATURE_HEADER_LIMITS.maxLength) {
    throw malformed(`it is ${value.length} characters long, more than ${SIGNATURE_HEADER_LIMITS.maxLength}`);
  }

  let timestamp: string | undefined;
  const signatures: string[] = [];
  let wellFormed = false;
  let parts = 0;
  let start = 0;
  while (start <= value.length) {
    parts++;
    if (parts > SIGNATURE_HEADER_LIMITS.maxParts) {
      throw malformed(`it has more than ${SIGNATURE_HEADER_LIMITS.maxParts} comma-separated parts`);
    }
    let end = value.indexOf(',', start);
    if (end === -1) end = value.length;
    let from = start;
    let to = end;
    while (from < to && isOptionalWhitespace(value.charCodeAt(from))) from++;
    while (to > from && isOptionalWhitespace(value.charCodeAt(to - 1))) to--;
    if (from === to) throw malformed(value.trim() === '' ? 'it is empty' : 'it has an empty part');

    const equals = value.indexOf('=', from);
    if (equals === -1 || equals >= to) throw malformed(`part ${parts} has no "="`);
    // Keys compared by character code: no string is allocated for a key.
    const keyLength = equals - from;
    if (keyLength === 1 && value.charCodeAt(from) === 0x74 /* t */) {
      if (timestamp !== undefined) throw malformed('t appears more than once');
      const text = value.slice(equals + 1, to);
      if (!isDigits(text)) throw malformed('t is not a whole number of seconds (digits only)');
      if (text.length > SIGNATURE_HEADER_LIMITS.maxTimestampDigits) throw malformed('t has too many digits');
      timestamp = text;
    } else if (
      keyLength === 2 &&
      value.charCodeAt(from) === 0x76 /* v */ &&
      value.charCodeAt(from + 1) === 0x31
    ) {
      const signature = value.slice(equals + 1, to);
      // Checked until one passes: usually the first, so a valid header pays for one check.
      if (!wellFormed) wellFormed = isSignatureHex(signature);
      signatures.push(signature);
    }
    start = end + 1;
  }

  if (timestamp === undefined) throw malformed('t is missing');
  if (signatures.length === 0) throw malformed('there is no v1 signature');
  if (!wellFormed) throw malformed('no v1 value is 64 hex digits (an HMAC-SHA256 in hex)');
  return { timestamp, signatures };
}
