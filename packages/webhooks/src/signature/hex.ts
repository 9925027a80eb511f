/** Length of an HMAC-SHA256 digest in bytes, and in hex digits. */
export const DIGEST_BYTES = 32;
export const SIGNATURE_HEX_LENGTH = 2 * DIGEST_BYTES;

/** Value of an ASCII hex digit (either case), or -1. Arithmetic rather than a table: faster in V8. */
function hexValue(code: number): number {
  const digit = code - 0x30;
  if (digit >= 0 && digit <= 9) return digit;
  const letter = (code | 0x20) - 0x61;
  return letter >= 0 && letter <= 5 ? letter + 10 : -1;
}

/**
 * Decodes one `v1` value into `target` (32 bytes) and returns true, or returns false when the value is
 * not exactly 64 hex digits: such a value can never match, and is never handed to a decoder that would
 * silently stop at the first bad character. Writing into a caller's buffer keeps the hot path free of
 * allocations. Where it stops reveals only the caller's own header.
 */
export function decodeSignatureInto(text: string, target: Uint8Array): boolean {
  if (text.length !== SIGNATURE_HEX_LENGTH) return false;
  for (let i = 0; i < DIGEST_BYTES; i++) {
    const high = hexValue(text.charCodeAt(2 * i));
    const low = hexValue(text.charCodeAt(2 * i + 1));
    if ((high | low) < 0) return false;
    target[i] = (high << 4) | low;
  }
  return true;
}

/** True when `text` is exactly 64 hex digits (either case). */
export function isSignatureHex(text: string): boolean {
  if (text.length !== SIGNATURE_HEX_LENGTH) return false;
  for (let i = 0; i < SIGNATURE_HEX_LENGTH; i++) {
    if (hexValue(text.charCodeAt(i)) < 0) return false;
  }
  return true;
}

const HEX_DIGITS = '0123456789abcdef';

export function encodeHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += HEX_DIGITS[byte >> 4]! + HEX_DIGITS[byte & 15]!;
  return out;
}
