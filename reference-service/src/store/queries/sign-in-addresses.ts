import type { Queryable } from '../db.js';

/** Client addresses that signed in to an account; see migration 0009. */
export async function isKnownAddress(db: Queryable, account: string, address: string): Promise<boolean> {
  const rows = await db.query<{ account: string }>(
    'SELECT account FROM sign_in_known_addresses WHERE account = $1 AND address = $2',
    [account, address],
  );
  return rows.length === 1;
}

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
}
