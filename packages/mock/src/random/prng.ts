/**
 * A small seeded generator (mulberry32). Not for secrets that protect anything: the mock's ids and signing
 * secrets only need to look right and, when the integrator asks for it, repeat from run to run.
 */
export interface Prng {
  /** A uniformly distributed 32-bit unsigned integer. */
  nextUint32(): number;
}

export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  return {
    nextUint32() {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return (t ^ (t >>> 14)) >>> 0;
    },
  };
}

/** A string or number seed folded to 32 bits (FNV-1a over the string form), so `'snapshots'` works too. */
export function seedToUint32(seed: number | string): number {
  const text = String(seed);
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * A fresh seed for sandboxes that did not ask to be repeatable. Node 18 has no global Web Crypto; the seed
 * only has to differ between sandboxes, not be secret, so `Math.random` is an acceptable fallback.
 */
export function randomSeed(): number {
  const webCrypto = (globalThis as { crypto?: Pick<Crypto, 'getRandomValues'> }).crypto;
  if (webCrypto) return webCrypto.getRandomValues(new Uint32Array(1))[0]!;
  return Math.floor(Math.random() * 2 ** 32);
}
