import { expect, it } from 'vitest';
import { SharedRead } from '../../src/ops/shared-read.js';

it('shares one read among the callers that arrive while it runs', async () => {
  let reads = 0;
  const shared = new SharedRead(async () => {
    reads++;
    await new Promise((resolve) => setTimeout(resolve, 30));
    return reads;
  }, 1_000);
  expect(await Promise.all([shared.get(), shared.get(), shared.get()])).toEqual([1, 1, 1]);
  // Settled: the next caller starts a fresh read.
  expect(await shared.get()).toBe(2);
});

it('lets a read that never settles hold later callers for one timeout at most', async () => {
  let reads = 0;
  const shared = new SharedRead(() => {
    reads++;
    // The first read hangs for good, as a statement on a connection lost without a word.
    return reads === 1 ? new Promise<number>(() => {}) : Promise.resolve(42);
  }, 50);
  await expect(Promise.all([shared.get(), shared.get()])).rejects.toThrow(/did not answer within 50 ms/);
  expect(reads).toBe(1);
  expect(await shared.get()).toBe(42);
  expect(reads).toBe(2);
});

it('passes a failed read on to every caller waiting for it', async () => {
  const shared = new SharedRead(() => Promise.reject(new Error('connection refused')), 1_000);
  const results = await Promise.allSettled([shared.get(), shared.get()]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect((results[0] as PromiseRejectedResult).reason.message).toBe('connection refused');
});
