import { type OutboundLimit, takeOutboundToken } from '@svc-kit/contract';
import type { Queryable } from '../db.js';

/**
 * Takes one token from a bucket in one statement. The upsert refills by the time since the last take (capped
 * at `capacity`) and only writes when a whole token is there, so two instances taking at once are serialised
 * by the row lock and never both spend the last token; a clock behind the stored time adds nothing. Answers
 * the milliseconds to wait when the bucket is empty.
 */
export async function takeToken(
  db: Queryable,
  bucket: string,
  limit: OutboundLimit,
  now: number,
): Promise<{ ok: true } | { ok: false; waitMs: number }> {
  const refilled = `LEAST($2::float8, outbound_budgets.tokens
      + GREATEST(0, $3::bigint - outbound_budgets.updated_at) * $4::float8)`;
  const taken = await db.query<{ tokens: number }>(
    `INSERT INTO outbound_budgets (bucket, tokens, updated_at) VALUES ($1, $2::float8 - 1, $3)
     ON CONFLICT (bucket) DO UPDATE
       SET tokens = ${refilled} - 1, updated_at = GREATEST(outbound_budgets.updated_at, $3::bigint)
       WHERE ${refilled} >= 1
     RETURNING tokens`,
    [bucket, limit.capacity, now, limit.perMs],
  );
  if (taken.length === 1) return { ok: true };
  const rows = await db.query<{ tokens: number; updated_at: number }>(
    'SELECT tokens, updated_at FROM outbound_budgets WHERE bucket = $1',
    [bucket],
  );
  const row = rows[0];
  const refused = takeOutboundToken(
    row ? { tokens: row.tokens, updatedAt: row.updated_at } : { tokens: 0, updatedAt: now },
    limit,
    now,
  );
  return { ok: false, waitMs: refused.ok ? 0 : refused.waitMs };
}

/** Gives back a token taken by `takeToken` (an attempt that turned out not to be a guess), up to capacity. */
export async function returnToken(db: Queryable, bucket: string, limit: OutboundLimit): Promise<void> {
  await db.query('UPDATE outbound_budgets SET tokens = LEAST($2::float8, tokens + 1) WHERE bucket = $1', [
    bucket,
    limit.capacity,
  ]);
}
