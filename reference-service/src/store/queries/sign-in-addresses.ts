import type { Queryable } from '../db.js';

/** Client addresses that signed in to an account; see migration 0009. */
export async function isKnownAddress(
  db: Queryable,
  account: string,
  address: string,
  now: number,
): Promise<boolean> {
  const rows = await db.query<{ account: string }>(
    'SELECT account FROM sign_in_known_addresses WHERE account = $1 AND address = $2 AND last_seen_at >= $3',
    [account, address, now - KNOWN_ADDRESS_MS],
  );
  return rows.length === 1;
}

/** An address unused for this long is forgotten: it counts as new again. */
export const KNOWN_ADDRESS_MS = 180 * 24 * 60 * 60 * 1000;

/**
 * Addresses remembered per account: a person's devices and networks. Without a cap, log-ins walking
 * through an IPv6 prefix's /64s (one a minute, as the per-account budget allows) left a row each for 180
 * days; past it the least recently used address is forgotten, and only counts as new again.
 */
export const KNOWN_ADDRESSES_PER_ACCOUNT = 32;

/**
 * Remembers a successful sign-in's address, and forgets the account's addresses unused for 180 days or
 * beyond the newest KNOWN_ADDRESSES_PER_ACCOUNT.
 */
export async function rememberAddress(
  db: Queryable,
  account: string,
  address: string,
  now: number,
): Promise<void> {
  await db.query(
    `INSERT INTO sign_in_known_addresses (account, address, last_seen_at) VALUES ($1, $2, $3)
     ON CONFLICT (account, address) DO UPDATE SET last_seen_at = GREATEST(sign_in_known_addresses.last_seen_at, $3)`,
    [account, address, now],
  );
  await db.query(
    `DELETE FROM sign_in_known_addresses
      WHERE account = $1
        AND (last_seen_at < $2 OR address NOT IN (
          SELECT address FROM sign_in_known_addresses WHERE account = $1
           ORDER BY last_seen_at DESC, address LIMIT ${KNOWN_ADDRESSES_PER_ACCOUNT}))`,
    [account, now - KNOWN_ADDRESS_MS],
  );
}
