// Verifying an X-Service-Signature by hand in Node.js, with node:crypto only (no SDK).
// Checked against every case of test-vectors/ by docs/test/recipes/recipes.test.ts.
import { createHmac, timingSafeEqual } from 'node:crypto';

const MAX_HEADER_LENGTH = 4096;
const MAX_PARTS = 16;
const MAX_TIMESTAMP_DIGITS = 15;
const HEX_SIGNATURE = /^[0-9a-fA-F]{64}$/;

export class VerificationError extends Error {
  /** One of the SDK's reason codes, e.g. 'no_matching_signature'. */
  constructor(reason) {
    super(reason);
    this.reason = reason;
  }
}

function trimSpacesAndTabs(text) {
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}

/** Splits `t=…,v1=…[,v1=…]`; unknown keys (v0, v2) are skipped. */
function parseHeader(header) {
  if (header === undefined || header === null || trimSpacesAndTabs(header) === '') {
    throw new VerificationError('missing_header');
  }
  const malformed = new VerificationError('malformed_header');
  if (header.length > MAX_HEADER_LENGTH) throw malformed;
  const parts = header.split(',');
  if (parts.length > MAX_PARTS) throw malformed;

  let timestamp;
  const signatures = [];
  for (const raw of parts) {
    const part = trimSpacesAndTabs(raw);
    const equals = part.indexOf('=');
    if (equals === -1) throw malformed; // includes an empty part
    const key = part.slice(0, equals);
    const value = part.slice(equals + 1);
    if (key === 't') {
      if (timestamp !== undefined) throw malformed;
      if (!/^[0-9]+$/.test(value) || value.length > MAX_TIMESTAMP_DIGITS) throw malformed;
      timestamp = value; // kept as text: the HMAC covers it exactly as received
    } else if (key === 'v1') {
      signatures.push(value);
    }
  }
  const wellFormed = signatures.filter((signature) => HEX_SIGNATURE.test(signature));
  if (timestamp === undefined || wellFormed.length === 0) throw malformed;
  return { timestamp, signatures: wellFormed };
}

/**
 * Throws a VerificationError unless the header carries a valid signature of `body` (the raw bytes, as a
 * Buffer) under one of `secrets`, made within `toleranceSeconds` of `nowSeconds`, either way.
 * During a rotation, pass both secrets: [newSecret, oldSecret].
 */
export function verifySignature({ header, body, secrets, toleranceSeconds = 300, nowSeconds }) {
  if (!(toleranceSeconds > 0)) throw new VerificationError('invalid_options');
  if (secrets.length === 0 || secrets.some((secret) => secret === '')) {
    throw new VerificationError('invalid_secret');
  }
  const { timestamp, signatures } = parseHeader(header);

  // HMAC-SHA256 over `<t as received>.<raw body>`, one per secret.
  const expected = secrets.map((secret) =>
    createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest(),
  );
  const received = signatures.map((hex) => Buffer.from(hex, 'hex'));
  // Constant-time comparison: the time taken says nothing about how many bytes matched.
  const matches = expected.some((mac) => received.some((candidate) => timingSafeEqual(mac, candidate)));
  if (!matches) throw new VerificationError('no_matching_signature');

  // Whole seconds: the receiver's clock is truncated before comparing.
  const now = nowSeconds ?? Math.floor(Date.now() / 1000);
  const age = now - Number(timestamp);
  if (age > toleranceSeconds) throw new VerificationError('timestamp_too_old');
  if (-age > toleranceSeconds) throw new VerificationError('timestamp_too_new');
}
