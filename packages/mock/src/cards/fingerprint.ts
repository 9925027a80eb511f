import { FINGERPRINT_PATTERN } from '@svc-kit/contract';
import { createPrng, seedToUint32 } from '../random/prng.js';

export function isFingerprint(value: string): boolean {
  return FINGERPRINT_PATTERN.test(value);
}

/**
 * A fingerprint-shaped value derived from a label, the same every time (`sandboxFingerprint('alice')`).
 * It has the format of a real fingerprint but is not the SHA-256 of anything: the mock never checks a
 * card's signature, it only needs stable names for parties. Synchronous, so cards can be built inline.
 */
export function sandboxFingerprint(label: string): string {
  const prng = createPrng(seedToUint32(`fingerprint:${label}`));
  let digits = '';
  for (let word = 0; word < 8; word++) digits += prng.nextUint32().toString(16).padStart(8, '0');
  return `sha256:${digits}`;
}
