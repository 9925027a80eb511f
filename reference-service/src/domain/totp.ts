import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * RFC 6238 TOTP (SHA-1, 6 digits, 30-second steps), as authenticator apps read it: a dozen lines on
 * node:crypto, checked by the RFC's vectors (test/domain/totp.test.ts).
 */
const STEP_SECONDS = 30;
const DIGITS = 6;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function generateTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

export function totpAt(secret: Buffer, unixSeconds: number, digits = DIGITS): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(stepOf(unixSeconds)));
  const mac = createHmac('sha1', secret).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const value = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(value % 10 ** digits).padStart(digits, '0');
}

/**
 * The time step (30-second counter) whose code `code` is, among the current step and one on either side
 * (clock drift between phone and server); `undefined` when none matches. The caller accepts a step once.
 */
export function matchTotpStep(base32Secret: string, code: string, nowMs: number): number | undefined {
  if (!/^[0-9]{6}$/.test(code)) return undefined;
  const secret = base32Decode(base32Secret);
  const now = Math.floor(nowMs / 1000);
  let matched: number | undefined;
  for (const drift of [-STEP_SECONDS, 0, STEP_SECONDS]) {
    // No early exit: every candidate is compared, in constant time.
    const at = now + drift;
    if (timingSafeEqual(Buffer.from(totpAt(secret, at)), Buffer.from(code))) matched ??= stepOf(at);
  }
  return matched;
}

function stepOf(unixSeconds: number): number {
  return Math.floor(unixSeconds / STEP_SECONDS);
}

export function currentTotp(base32Secret: string, nowMs: number): string {
  return totpAt(base32Decode(base32Secret), Math.floor(nowMs / 1000));
}

export function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, '').toUpperCase();
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('not base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}
