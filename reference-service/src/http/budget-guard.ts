import { limitRefusal, type OutboundLimit } from '@svc-kit/contract';
import { RateLimitedError } from '../domain/errors.js';
import type { Db, Queryable } from '../store/db.js';
import { returnToken, takeToken } from '../store/queries/rate-limits.js';

export type GuessBuckets = readonly (readonly [bucket: string, limit: OutboundLimit])[];

/**
 * Buckets the database answered empty, with the time (the service's clock) a token is back, per database
 * handle. Until then the same refusal is answered from memory: a flood of refused calls from one address
 * would otherwise cost statements at the rate it is sent, and slow every other tenant's. Only time or a
 * token given back refills a bucket, so memory never admits what the database would refuse; a token given
 * back here forgets the bucket's refusal (spendGuess), and one given back elsewhere is seen within
 * GIVEN_BACK_MEMORY_MS.
 * Bounded: the oldest entry goes first.
 */
const knownEmpty = new WeakMap<Queryable, Map<string, KnownEmpty>>();
const KNOWN_EMPTY_CAP = 10_000;
/**
 * How long a bucket that may be given back is remembered empty (spendGuess's): another instance may give
 * its token back, and only this one would forget. A second still spares the database all but one
 * statement a second of a flood.
 */
const GIVEN_BACK_MEMORY_MS = 1_000;

/** When the database said a token is back, and when this instance asks it again. */
type KnownEmpty = { refillAt: number; forgetAt: number };

/** Throws the 429 the database gave for any of `buckets` still empty at `now`, without a statement. */
export function refuseKnownEmpty(db: Queryable, buckets: GuessBuckets, now: number): void {
  const empty = knownEmpty.get(db);
  if (!empty) return;
  for (const [bucket, limit] of buckets) {
    const known = empty.get(bucket);
    if (known === undefined) continue;
    if (known.forgetAt > now) throw refusal(limit, known.refillAt - now);
    empty.delete(bucket);
  }
}

function refusal(limit: OutboundLimit, waitMs: number): RateLimitedError {
  // The contract's words for an empty bucket, so that the mock's 429 says the same.
  const { retryAfter, message } = limitRefusal(limit, waitMs);
  return new RateLimitedError(retryAfter, message);
}

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
  refuseKnownEmpty(db, buckets, now);
  await db.transaction(async (tx) => {
    for (const [bucket, limit] of buckets) {
      await takeOrRefuse(tx, db, bucket, limit, now, GIVEN_BACK_MEMORY_MS);
    }
  });
  // `which`: some of the buckets only, when the secret decides which of them counted (a log-in).
  return async (which = buckets) => {
    for (const [bucket, limit] of which) {
      await returnToken(db, bucket, limit);
      // A token held by a call in flight made this bucket refuse another meanwhile: the refusal named
      // the time of the next refill, but the bucket holds a token again now, so memory must not outlast it.
      knownEmpty.get(db)?.delete(bucket);
    }
  };
}

/**
 * Takes one token of one bucket in one statement on the handle given: a refused credential counted after
 * the fact (429 instead of 401 once the bucket is empty), or a read a budget bounds, spent before it runs.
 * An empty bucket is left as it is: the 429 itself spends nothing.
 */
export async function spendBudget(
  db: Queryable,
  bucket: string,
  limit: OutboundLimit,
  now: number,
): Promise<void> {
  refuseKnownEmpty(db, [[bucket, limit]], now);
  await takeOrRefuse(db, db, bucket, limit, now, Number.POSITIVE_INFINITY);
}

/**
 * Takes a token on `handle` (a transaction of `db`, or `db` itself); an empty bucket is remembered until a
 * token is back, or for `rememberMs` if that is sooner.
 */
async function takeOrRefuse(
  handle: Queryable,
  db: Queryable,
  bucket: string,
  limit: OutboundLimit,
  now: number,
  rememberMs: number,
): Promise<void> {
  const taken = await takeToken(handle, bucket, limit, now);
  if (taken.ok) return;
  const empty = knownEmpty.get(db) ?? new Map<string, KnownEmpty>();
  knownEmpty.set(db, empty);
  if (empty.size >= KNOWN_EMPTY_CAP) empty.delete(empty.keys().next().value as string);
  empty.set(bucket, { refillAt: now + taken.waitMs, forgetAt: now + Math.min(taken.waitMs, rememberMs) });
  throw refusal(limit, taken.waitMs);
}
