import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '../../src/domain/errors.js';
import { ScryptGate } from '../../src/domain/scrypt-gate.js';

/** A piece of work the test finishes by hand, counting how many run at once. */
function works() {
  let running = 0;
  let most = 0;
  const finishers: (() => void)[] = [];
  const start = () =>
    new Promise<void>((resolve) => {
      running++;
      most = Math.max(most, running);
      finishers.push(() => {
        running--;
        resolve();
      });
    });
  return { start, finishers, most: () => most };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the scrypt gate', () => {
  it('runs at most `concurrency` at once, in arrival order, and refuses past the queue at once', async () => {
    const gate = new ScryptGate(2, 3);
    const w = works();
    const order: number[] = [];
    const runs = Array.from({ length: 5 }, (_, i) =>
      gate.run(async () => {
        await w.start();
        order.push(i);
      }),
    );
    await tick();
    expect(gate.stats()).toEqual({ running: 2, waiting: 3 });
    const refused = await gate.run(async () => 'never').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterSeconds).toBe(1);
    while (w.finishers.length > 0 || gate.stats().running > 0) {
      w.finishers.shift()?.();
      await tick();
    }
    await Promise.all(runs);
    expect(w.most()).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(gate.stats()).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the slot when the work fails', async () => {
    const gate = new ScryptGate(1, 1);
    await expect(gate.run(async () => Promise.reject(new Error('scrypt failed')))).rejects.toThrow(
      'scrypt failed',
    );
    expect(await gate.run(async () => 'ok')).toBe('ok');
    expect(gate.stats()).toEqual({ running: 0, waiting: 0 });
  });
});
