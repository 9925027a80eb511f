import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createAttempt } from '../../src/delivery/attempt.js';
import { ClaimScheduler } from '../../src/delivery/claim-scheduler.js';
import { ClaimedQueue, type Ready } from '../../src/delivery/claimed-queue.js';
import { createSuccessLog } from '../../src/delivery/success-log.js';
import { createGuardedClient } from '../../src/outbound/guarded-client.js';
import type { ClaimedDelivery } from '../../src/store/queries/deliveries-claim.js';
import { BACKENDS } from '../support/backends.js';

function ready(id: string, endpointId: string, claimedAt: number): Ready {
  const row: ClaimedDelivery = {
    id,
    event_id: `evt_${id}`,
    event_type: 'message.received',
    endpoint_id: endpointId,
    url: 'https://receiver.example/hook',
    secret_enc: null,
    previous_secret_enc: null,
    rotating_until: null,
    body: '{}',
  };
  return { row, claimedAt, secret: 'whsec_test', previousSecret: null };
}

const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id);

describe('ClaimedQueue: the rows claimed ahead of a free slot', () => {
  it('hands rows out oldest first and moves rows past their freshness to the stale list', () => {
    const queue = new ClaimedQueue();
    queue.add([ready('a', 'we_1', 10), ready('b', 'we_1', 20), ready('c', 'we_2', 30)]);
    const stale: ClaimedDelivery[] = [];
    expect(queue.take(15, stale)?.row.id).toBe('b');
    expect(ids(stale)).toEqual(['a']);
    expect(queue.size).toBe(1);
    expect(queue.take(15, stale)?.row.id).toBe('c');
    expect(queue.take(15, stale)).toBeUndefined();
  });

  it("takes out one endpoint's rows and keeps the others in order", () => {
    const queue = new ClaimedQueue();
    queue.add([ready('a', 'we_1', 1), ready('b', 'we_2', 2), ready('c', 'we_1', 3), ready('d', 'we_2', 4)]);
    expect(ids(queue.takeEndpoint('we_1'))).toEqual(['a', 'c']);
    expect(ids(queue.takeEndpoint('we_9'))).toEqual([]);
    const stale: ClaimedDelivery[] = [];
    expect([queue.take(0, stale)?.row.id, queue.take(0, stale)?.row.id]).toEqual(['b', 'd']);
  });

  it('gives back every waiting row once when released, then refuses rows and a second release', () => {
    const queue = new ClaimedQueue();
    queue.add([ready('a', 'we_1', 1), ready('b', 'we_2', 2)]);
    expect(ids(queue.release())).toEqual(['a', 'b']);
    expect(queue.mode).toBe('released');
    expect(queue.size).toBe(0);
    expect(() => queue.add([ready('c', 'we_1', 3)])).toThrow(/claimed after the queue was released/);
    expect(() => queue.release()).toThrow(/released twice/);
  });
});

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

describe('an attempt whose failure cannot be recorded', () => {
  it("still gives the endpoint's rows claimed ahead back to the database, never dialled", async () => {
    const store = await BACKENDS[0]!.open();
    // The record of the failure will fail: the database is gone.
    await store.close();
    const log = pino({ level: 'silent' });
    const released: string[][] = [];
    const attempt = createAttempt({
      db: store.db,
      // The receiver's name resolves to a private address: refused before anything is sent.
      client: createGuardedClient({ resolve: async () => ['10.0.0.1'], allowLocalhost: false }),
      relay: undefined,
      onOutcome: undefined,
      successes: createSuccessLog(store.db, log),
      log,
      now: Date.now,
      takeEndpoint: (endpointId) => [ready('b', endpointId, 0).row, ready('c', endpointId, 0).row],
      release: async (rows) => {
        released.push(ids(rows));
      },
    });
    await expect(attempt(ready('a', 'we_1', Date.now()))).rejects.toThrow();
    expect(released).toEqual([['b', 'c']]);
  });
});
