import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';
import { scryptGate } from './scrypt-gate.js';

/** Through the process's gate (scrypt-gate.ts): a burst of log-ins cannot take the whole thread pool. */
const scryptAsync = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  scryptGate.run(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
      ),
  );

type ScryptCost = Record<'N' | 'r' | 'p', number>;

export type PasswordCost = 'standard' | 'test';
const COSTS: Record<PasswordCost, ScryptCost> = {
  // 32 MiB per hash, one of OWASP's listed equivalents of N=2^17, p=1 (four times less memory per
  // concurrent log-in on a small machine, the same work for a guesser). About 0.1 s on an idle core.
  standard: { N: 2 ** 15, r: 8, p: 3 },
  // `SVC_PASSWORD_COST=test` (refused in production): 1 MiB and a few milliseconds, so that a test suite
  // signing in thousands of times does not spend minutes in scrypt. Verification reads the cost from the
  // hash, so the setting changes only what is written.
  test: { N: 2 ** 10, r: 8, p: 1 },
};
/** Hashes written before the cost was stored with them (`scrypt.<salt>.<hash>`): Node's defaults. */
const LEGACY_COST: ScryptCost = { N: 2 ** 14, r: 8, p: 1 };

/** Room for the largest cost we read (128 * N * r bytes, plus scrypt's own small buffers). */
const maxmem = (cost: ScryptCost) => 128 * cost.N * cost.r * 2;

/**
 * Member passwords, stored as `scrypt2.<N>.<r>.<p>.<salt>.<hash>` (salt and hash base64url), so that the
 * cost can be raised later without making older hashes unreadable.
 */
export async function hashPassword(password: string, cost: PasswordCost = 'standard'): Promise<string> {
  const params = COSTS[cost];
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, 32, { ...params, maxmem: maxmem(params) });
  return `scrypt2.${params.N}.${params.r}.${params.p}.${salt.toString('base64url')}.${hash.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseStored(stored);
  if (!parsed) return false;
  const expected = Buffer.from(parsed.hash, 'base64url');
  const salt = Buffer.from(parsed.salt, 'base64url');
  const cost = parsed.cost;
  const actual = await scryptAsync(password, salt, expected.length, { ...cost, maxmem: maxmem(cost) });
  return timingSafeEqual(actual, expected);
}

/** True when the stored hash was written with another cost than today's (older rows, or a raised cost). */
export function needsRehash(stored: string, cost: PasswordCost = 'standard'): boolean {
  const parsed = parseStored(stored);
  if (!parsed) return false;
  const { N, r, p } = parsed.cost;
  const wanted = COSTS[cost];
  return N !== wanted.N || r !== wanted.r || p !== wanted.p;
}

function parseStored(stored: string): { cost: ScryptCost; salt: string; hash: string } | undefined {
  const parts = stored.split('.');
  if (parts[0] === 'scrypt' && parts.length === 3 && parts[1] && parts[2])
    return { cost: LEGACY_COST, salt: parts[1], hash: parts[2] };
  if (parts[0] !== 'scrypt2' || parts.length !== 6 || !parts[4] || !parts[5]) return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Only costs we could have written: a row edited by hand must not make a log-in allocate gigabytes.
  const sane =
    Number.isInteger(Math.log2(N)) && N >= COSTS.test.N && N <= 2 ** 17 && r === 8 && p >= 1 && p <= 8;
  return sane ? { cost: { N, r, p }, salt: parts[4], hash: parts[5] } : undefined;
}
