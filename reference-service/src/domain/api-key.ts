import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { API_KEY_PATTERN } from '@svc-kit/contract';

/**
 * A key's id, its whole `token` (shown to its owner once) and the `secretHash` stored: the secret is 256
 * random bits, so one SHA-256 is enough (no password stretching).
 */
export function mintApiKey(): { id: string; token: string; secretHash: string } {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('hex');
  return { id, token: `svc_${id}_${secret}`, secretHash: hash('sha256', secret, 'hex') };
}

export function parseApiKey(token: string): { id: string; secret: string } | undefined {
  const match = API_KEY_PATTERN.exec(token);
  if (!match) return undefined;
  return { id: match[1]!, secret: match[2]! };
}

/** Hashes of equal length compared in constant time, so timing says nothing about a near miss. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const given = hash('sha256', secret, 'buffer');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
