import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  hash,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';

/** An Ed25519 public key is 32 raw bytes; base64url without padding gives 43 characters. */
export const PUBLIC_KEY_LENGTH = 32;

/** `sha256:<hex>` of the raw public key bytes. */
export function fingerprintOf(publicKeyRaw: Buffer): string {
  return `sha256:${hash('sha256', publicKeyRaw)}`;
}

/** The raw public key and the PKCS#8 DER of the private key (the form sealed at rest), both base64url. */
export function generateIdentityKeyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = rawPublicKey(publicKey);
  return {
    publicKey: raw.toString('base64url'),
    privateKeyPkcs8: privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64url'),
    fingerprint: fingerprintOf(raw),
  };
}

function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new Error('not an Ed25519 public key');
  return Buffer.from(jwk.x, 'base64url');
}

/** A public key object from its raw base64url form; `undefined` when it is not 32 bytes. */
export function publicKeyFromRaw(base64url: string): KeyObject | undefined {
  const raw = Buffer.from(base64url, 'base64url');
  if (raw.length !== PUBLIC_KEY_LENGTH || raw.toString('base64url') !== base64url) return undefined;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: base64url }, format: 'jwk' });
  } catch {
    return undefined;
  }
}

export function privateKeyFromPkcs8(base64url: string): KeyObject {
  return createPrivateKey({ key: Buffer.from(base64url, 'base64url'), format: 'der', type: 'pkcs8' });
}

export function signBytes(privateKey: KeyObject, data: Buffer): Buffer {
  return sign(null, data, privateKey);
}

export function verifyBytes(publicKey: KeyObject, data: Buffer, signature: Buffer): boolean {
  // Ed25519 signatures are 64 bytes; anything else is refused before the library sees it.
  if (signature.length !== 64) return false;
  try {
    return verify(null, data, publicKey, signature);
  } catch {
    return false;
  }
}
