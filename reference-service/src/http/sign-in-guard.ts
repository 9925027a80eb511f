import { limitRefusal, type OutboundLimit } from '@svc-kit/contract';
import { RateLimitedError } from '../domain/errors.js';
import type { Db, Queryable } from '../store/db.js';
import { returnToken, takeToken } from '../store/queries/rate-limits.js';

export type GuessBuckets = readonly (readonly [bucket: string, limit: OutboundLimit])[];

/**
 * Takes one token from every bucket before a secret is checked, all or none (one transaction), so that
 * concurrent guesses can never spend more than the buckets hold; an empty bucket answers 429 without the
 * secret being looked at. The caller gives the tokens back when the secret was right: only wrong guesses
 * count.
 */
export async function spendGuess(
  db: Db,
  buckets: GuessBuckets,
  now: number,
): Promise<(which?: GuessBuckets) => Promise<void>> {
  await db.transaction(async (tx) => {
    for (const [bucket, limit] of buckets) await countRefusal(tx, bucket, limit, now);
  });
  // `which`: some of the buckets only, when the secret decides which of them counted (a log-in).
  return async (which = buckets) => {
    for (const [bucket, limit] of which) await returnToken(db, bucket, limit);
  };
}

/**
 * Takes one token of one bucket in one statement on the handle given: a refused credential counted after
 * the fact (429 instead of 401 once the bucket is empty), or a read a budget bounds, spent before it runs.
 * An empty bucket is left as it is: the 429 itself spends nothing.
 */
export async function countRefusal(
  db: Queryable,
  bucket: string,
  limit: OutboundLimit,
  now: number,
): Promise<void> {
  const taken = await takeToken(db, bucket, limit, now);
  if (taken.ok) return;
  // The contract's words for an empty bucket, so that the mock's 429 says the same.
  const { retryAfter, message } = limitRefusal(limit, taken.waitMs);
  throw new RateLimitedError(retryAfter, message);
}
