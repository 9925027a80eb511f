import type { BodyInput } from '../body/raw-body';
import { WebhookVerificationError } from '../errors';
import { DIGEST_BYTES, decodeSignatureInto } from '../signature/hex';
import { constantTimeEqual } from './constant-time';

const encoder = new TextEncoder();

/** Imported keys are cached per secret: importing costs about as much as signing a small body. */
const KEY_CACHE_LIMIT = 16;
const keyCache = new Map<string, Promise<CryptoKey>>();

function subtle(): SubtleCrypto {
  const api = (globalThis as { crypto?: { subtle?: SubtleCrypto } }).crypto?.subtle;
  if (api === undefined) {
    throw new WebhookVerificationError(
      'invalid_options',
      'Web Crypto (globalThis.crypto.subtle) is not available in this runtime; use the Node build of ' +
        '@svc-kit/webhooks or a runtime with Web Crypto.',
    );
  }
  return api;
}

function importKey(secret: string): Promise<CryptoKey> {
  const cached = keyCache.get(secret);
  if (cached !== undefined) return cached;
  const key = subtle().importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.delete(keyCache.keys().next().value as string);
  keyCache.set(secret, key);
  key.catch(() => keyCache.delete(secret));
  return key;
}

/** `<t>.<body>` as bytes, built in one allocation for byte bodies (Web Crypto cannot hash in pieces). */
function signedBytes(timestamp: string, body: BodyInput): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return encoder.encode(`${timestamp}.${body}`);
  const bytes = new Uint8Array(timestamp.length + 1 + body.length);
  // `t` is ASCII digits (checked by the parser, or produced by String(integer) when signing).
  for (let i = 0; i < timestamp.length; i++) bytes[i] = timestamp.charCodeAt(i);
  bytes[timestamp.length] = 0x2e;
  bytes.set(body, timestamp.length + 1);
  return bytes;
}

export async function webDigest(secret: string, timestamp: string, body: BodyInput): Promise<Uint8Array> {
  return webDigestOf(secret, signedBytes(timestamp, body));
}

async function webDigestOf(secret: string, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const key = await importKey(secret);
  return new Uint8Array(await subtle().sign('HMAC', key, data));
}

/** One HMAC per secret, then a constant-time comparison against every `v1` value. */
export async function webMatches(
  secrets: readonly string[],
  timestamp: string,
  body: BodyInput,
  signatures: readonly string[],
): Promise<boolean> {
  const data = signedBytes(timestamp, body);
  const candidate = new Uint8Array(DIGEST_BYTES);
  for (const secret of secrets) {
    const digest = await webDigestOf(secret, data);
    for (const signature of signatures) {
      if (decodeSignatureInto(signature, candidate) && constantTimeEqual(digest, candidate)) return true;
    }
  }
  return false;
}
