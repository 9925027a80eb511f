import { describe, expect, it } from 'vitest';
import { ClaimScheduler } from '../../src/delivery/claim-scheduler.js';

describe('ClaimScheduler: one claim at a time, no wake-up lost', () => {
  function deferred() {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  }

  it('runs one claim for wake-ups in the same turn, and another for a wake-up during the claim', async () => {
    const gates = [deferred(), deferred()];
    let runs = 0;
    const scheduler = new ClaimScheduler(
      () => gates[runs++]!.promise,
      (error) => {
        throw error;
      },
    );
    scheduler.wake();
    scheduler.wake();
    expect(scheduler.mode).toBe('scheduled');
    await new Promise((resolve) => setImmediate(resolve));
    expect([scheduler.mode, runs]).toEqual(['claiming', 1]);
    scheduler.wake();
    scheduler.wake();
    expect(scheduler.mode).toBe('claiming_again');
    const settled = scheduler.settled();
    gates[0]!.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect([scheduler.mode, runs]).toEqual(['claiming', 2]);
    gates[1]!.resolve();
    await settled;
    expect([scheduler.mode, runs]).toEqual(['idle', 2]);
  });

  it('reports a failing claim and does not retry it until the next wake-up', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const scheduler = new ClaimScheduler(
      async () => {
        runs++;
        scheduler.wake();
        throw new Error('database unreachable');
      },
      (error) => errors.push(error),
    );
    scheduler.wake();
    await new Promise((resolve) => setImmediate(resolve));
    await scheduler.settled();
    expect(runs).toBe(1);
    expect(errors).toHaveLength(1);
    expect(scheduler.mode).toBe('idle');
  });
});
