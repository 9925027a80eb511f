import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../src/domain/errors.js';
import { LOGINS_PER_ACCOUNT } from '../../src/domain/sign-in-limits.js';
import { spendGuess } from '../../src/http/budget-guard.js';
import { returnToken } from '../../src/store/queries/rate-limits.js';
import { BACKENDS } from '../support/backends.js';
import { useStore } from '../support/service-lifecycle.js';

// A refusal remembered in memory (http/budget-guard.ts) must not outlast the database's. Wrong passwords
// hold an account's log-in tokens while their scrypt runs and give them back after: a log-in refused
// meanwhile named a minute, and memory refused the owner for that minute although the tokens were back.

describe.each(BACKENDS)('a remembered refusal of a bucket whose tokens come back, on $name', (backend) => {
  const store = useStore(backend);

  it('is forgotten when a token is given back', async () => {
    const now = Date.now();
    const buckets = [[`guess:login:given-back-${now}`, LOGINS_PER_ACCOUNT]] as const;
    const held = [];
    for (let i = 0; i < LOGINS_PER_ACCOUNT.capacity; i++) held.push(await spendGuess(store.db, buckets, now));
    // Refused by the database while every token is held, and so remembered.
    await expect(spendGuess(store.db, buckets, now)).rejects.toBeInstanceOf(RateLimitedError);
    // One holder gives its token back at the same instant: the database has it, so a call must get it.
    await held[0]!();
    const again = await spendGuess(store.db, buckets, now);
    expect(typeof again).toBe('function');
    // And the bucket is empty again: memory admitted nothing the database would refuse.
    await expect(spendGuess(store.db, buckets, now)).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('is asked of the database again within a second when another instance gives a token back', async () => {
    const now = Date.now();
    const [bucket, limit] = [`guess:login:elsewhere-${now}`, LOGINS_PER_ACCOUNT] as const;
    const buckets = [[bucket, limit]] as const;
    for (let i = 0; i < limit.capacity; i++) await spendGuess(store.db, buckets, now);
    const refused = await spendGuess(store.db, buckets, now).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitedError);
    // Another instance's call gives its token back: this instance's memory does not see it.
    await returnToken(store.db, bucket, limit);
    const fromMemory = await spendGuess(store.db, buckets, now + 999).catch((error: unknown) => error);
    expect(fromMemory).toBeInstanceOf(RateLimitedError);
    // The same refusal, still naming the database's refill rather than the second memory keeps it.
    expect((fromMemory as RateLimitedError).retryAfterSeconds).toBe(
      (refused as RateLimitedError).retryAfterSeconds,
    );
    expect(typeof (await spendGuess(store.db, buckets, now + 1_000))).toBe('function');
  });
});
