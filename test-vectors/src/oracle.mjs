// The independent signer. It uses node:crypto and nothing from the SDK, so that checking the SDK against
// these vectors compares two implementations written separately.
import { createHmac } from 'node:crypto';

/**
 * Hex HMAC-SHA256 of `<timestamp text>.<body bytes>`; the secret's UTF-8 bytes are the key.
 * The timestamp is used as text, exactly as it will appear in the header.
 * @param {string} secret
 * @param {string} timestampText
 * @param {Uint8Array} body
 * @returns {string}
 */
export function hmacV1(secret, timestampText, body) {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.from(`${timestampText}.`, 'utf8'))
    .update(body)
    .digest('hex');
}

/**
 * The header a correct service emits: `t=<seconds>` then one `v1=` per secret, in the given order
 * (during a rotation the new secret comes first).
 * @param {Uint8Array} body
 * @param {{ timestamp: number | string, secrets: readonly string[] }} signing
 * @returns {string}
 */
export function signatureHeader(body, { timestamp, secrets }) {
  const t = String(timestamp);
  return [`t=${t}`, ...secrets.map((secret) => `v1=${hmacV1(secret, t, body)}`)].join(',');
}
