import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, currentTotp, matchTotpStep, totpAt } from '../../src/domain/totp.js';

// RFC 6238 appendix B, SHA-1 rows: the seed is the ASCII of "12345678901234567890", 8 digits.
const RFC_SEED = Buffer.from('12345678901234567890', 'ascii');
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP', () => {
  it.each(RFC_VECTORS)('matches RFC 6238 at t=%i', (seconds, code) => {
    expect(totpAt(RFC_SEED, seconds, 8)).toBe(code);
  });

  it('round-trips base32 (RFC 4648 vector included)', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 64 }), (bytes) => {
        expect(base32Decode(base32Encode(Buffer.from(bytes))).equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });

  it('accepts the current code and one step of drift, nothing else', () => {
    const secret = base32Encode(RFC_SEED);
    const now = 1_700_000_000_000;
    expect(matchTotpStep(secret, currentTotp(secret, now), now)).toBeDefined();
    expect(matchTotpStep(secret, currentTotp(secret, now - 30_000), now)).toBeDefined();
    expect(matchTotpStep(secret, currentTotp(secret, now + 30_000), now)).toBeDefined();
    expect(matchTotpStep(secret, currentTotp(secret, now - 90_000), now)).toBeUndefined();
    for (const bad of ['', '12345', '1234567', 'abcdef', ' 12345'])
      expect(matchTotpStep(secret, bad, now)).toBeUndefined();
  });
});
