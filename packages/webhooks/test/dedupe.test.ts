import { DuplicateGuard, type DuplicateStore, MemoryDuplicateStore, Webhooks } from '@svc-kit/webhooks';
import { describe, expect, it } from 'vitest';
import { SECRET, signedDelivery } from './adapters/fixtures';

describe('MemoryDuplicateStore', () => {
  it('claims an id once until it expires', async () => {
    let now = 1_000;
    const store = new MemoryDuplicateStore({ ttlMs: 100, now: () => now });
    expect(await store.claim('a')).toBe(true);
    expect(await store.claim('a')).toBe(false);
    now += 99;
    expect(await store.claim('a')).toBe(false);
    now += 1;
    expect(await store.claim('a')).toBe(true);
  });

  it('frees an id on release', async () => {
    const store = new MemoryDuplicateStore();
    expect(await store.claim('a')).toBe(true);
    await store.release('a');
    expect(await store.claim('a')).toBe(true);
  });

  it('forgets the oldest ids beyond maxEntries', async () => {
    const store = new MemoryDuplicateStore({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c', 'd']) expect(await store.claim(id)).toBe(true);
    expect(store.size).toBe(3);
    expect(await store.claim('d')).toBe(false);
    expect(await store.claim('b')).toBe(false);
    expect(await store.claim('a')).toBe(true);
  });

  it('drops expired ids as time passes, so memory follows the traffic', async () => {
    let now = 0;
    const store = new MemoryDuplicateStore({ ttlMs: 10, now: () => now });
    for (let i = 0; i < 100; i++) await store.claim(`id${i}`);
    expect(store.size).toBe(100);
    now = 10;
    await store.claim('later');
    expect(store.size).toBe(1);
  });

  it('gives concurrent claims of one id exactly one winner', async () => {
    const store = new MemoryDuplicateStore();
    const results = await Promise.all(Array.from({ length: 20 }, () => store.claim('same')));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it.each([
    [{ ttlMs: 0 }],
    [{ ttlMs: -1 }],
    [{ ttlMs: Number.NaN }],
    [{ maxEntries: 0 }],
    [{ maxEntries: 1.5 }],
  ])('refuses %j', (options) => {
    expect(() => new MemoryDuplicateStore(options)).toThrow(
      expect.objectContaining({ reason: 'invalid_options' }),
    );
  });
});

describe('DuplicateGuard', () => {
  it('keys the store on the event id, with a prefix', async () => {
    const keys: string[] = [];
    const store: DuplicateStore = {
      claim: async (key) => {
        keys.push(key);
        return true;
      },
      release: async () => {},
    };
    await new DuplicateGuard(store).claim('evt_1');
    await new DuplicateGuard(store, { keyPrefix: 'app1:' }).claim('evt_1');
    expect(keys).toEqual(['svc-webhooks:event:evt_1', 'app1:evt_1']);
  });

  it('uses a memory store by default', async () => {
    const guard = new DuplicateGuard();
    expect(await guard.claim('evt_1')).toBe(true);
    expect(await guard.claim('evt_1')).toBe(false);
    await guard.release('evt_1');
    expect(await guard.claim('evt_1')).toBe(true);
  });

  const broken: DuplicateStore = {
    claim: () => Promise.reject(new Error('redis down')),
    release: () => Promise.reject(new Error('redis down')),
  };

  it('fails open by default and reports the store error', async () => {
    const errors: unknown[] = [];
    const guard = new DuplicateGuard(broken, { onStoreError: (error) => errors.push(error) });
    expect(await guard.claim('evt_1')).toBe(true);
    await guard.release('evt_1');
    expect(errors).toHaveLength(2);
  });

  it('fails closed when asked', async () => {
    const guard = new DuplicateGuard(broken, { failOpen: false });
    await expect(guard.claim('evt_1')).rejects.toThrow('redis down');
  });

  it('is not derailed by a throwing onStoreError', async () => {
    const guard = new DuplicateGuard(broken, {
      onStoreError: () => {
        throw new Error('logger broke');
      },
    });
    expect(await guard.claim('evt_1')).toBe(true);
  });
});

describe('two concurrent deliveries of one event', () => {
  /** A receiver whose handler waits for the test to let each run finish, succeeding or failing. */
  function gatedReceiver(dedupe?: DuplicateGuard) {
    const webhooks = new Webhooks({ secret: SECRET, ...(dedupe === undefined ? {} : { dedupe }) });
    const runs: { finish: (ok: boolean) => void }[] = [];
    const log: string[] = [];
    let started: () => void = () => {};
    webhooks.on('message.received', async () => {
      const run = runs.length + 1;
      log.push(`run ${run} started`);
      const ok = await new Promise<boolean>((resolve) => {
        runs.push({ finish: resolve });
        started();
      });
      log.push(`run ${run} ${ok ? 'succeeded' : 'failed'}`);
      if (!ok) throw new Error('the database was down');
    });
    const nextRun = () => new Promise<void>((resolve) => (started = resolve));
    return { webhooks, runs, log, nextRun };
  }

  async function deliver(
    webhooks: Webhooks,
    delivery: { body: string; headers: Record<string, string> },
    answered: () => void = () => {},
  ) {
    const response = await webhooks.handle({
      body: delivery.body,
      headers: delivery.headers,
      method: 'POST',
    });
    answered();
    return { status: response.status, body: JSON.parse(response.body) as unknown };
  }

  it('runs the second itself when the first fails: never "received" while nobody handled it', async () => {
    const { webhooks, runs, log, nextRun } = gatedReceiver();
    const delivery = await signedDelivery();
    const firstStarted = nextRun();
    const first = deliver(webhooks, delivery);
    await firstStarted;
    const second = deliver(webhooks, delivery, () => log.push('second answered'));
    // The second is not answered while the first runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['run 1 started']);

    const secondStarted = nextRun();
    runs[0]!.finish(false);
    expect(await first).toMatchObject({ status: 500 });
    await secondStarted;
    runs[1]!.finish(true);
    expect(await second).toEqual({ status: 200, body: { received: true } });
    expect(log).toEqual([
      'run 1 started',
      'run 1 failed',
      'run 2 started',
      'run 2 succeeded',
      'second answered',
    ]);
  });

  it('answers the second as a duplicate only once the first has succeeded', async () => {
    const { webhooks, runs, log, nextRun } = gatedReceiver();
    const delivery = await signedDelivery();
    const firstStarted = nextRun();
    const first = deliver(webhooks, delivery, () => log.push('first answered'));
    await firstStarted;
    const second = deliver(webhooks, delivery, () => log.push('second answered'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['run 1 started']);

    runs[0]!.finish(true);
    expect(await first).toEqual({ status: 200, body: { received: true } });
    expect(await second).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(log).toEqual(['run 1 started', 'run 1 succeeded', 'first answered', 'second answered']);
    expect(runs).toHaveLength(1);
  });

  it('holds with a store that answers slowly, whichever claim returns first', async () => {
    const claimed = new Set<string>();
    const delays = [5, 0];
    const store: DuplicateStore = {
      claim: async (key) => {
        const first = !claimed.has(key);
        claimed.add(key);
        // The winning claim comes back last.
        await new Promise((resolve) => setTimeout(resolve, delays.shift() ?? 0));
        return first;
      },
      release: async (key) => void claimed.delete(key),
    };
    const { webhooks, runs, nextRun } = gatedReceiver(new DuplicateGuard(store));
    const delivery = await signedDelivery();
    const firstStarted = nextRun();
    const first = deliver(webhooks, delivery);
    const second = deliver(webhooks, delivery);
    await firstStarted;
    const secondStarted = nextRun();
    runs[0]!.finish(false);
    expect(await first).toMatchObject({ status: 500 });
    await secondStarted;
    runs[1]!.finish(true);
    expect(await second).toEqual({ status: 200, body: { received: true } });
  });
});

describe('a duplicate reaching another instance while the first still runs', () => {
  it('is refused as in progress (409) by a shared store that records success, then acknowledged', async () => {
    const shared = new MemoryDuplicateStore();
    let release: (ok: boolean) => void = () => {};
    let started: () => void = () => {};
    const firstStarted = new Promise<void>((resolve) => (started = resolve));
    const instanceA = new Webhooks({ secret: SECRET, dedupe: new DuplicateGuard(shared) });
    instanceA.on('message.received', async () => {
      started();
      if (!(await new Promise<boolean>((resolve) => (release = resolve)))) throw new Error('down');
    });
    const instanceB = new Webhooks({ secret: SECRET, dedupe: new DuplicateGuard(shared) });
    const ranOnB: string[] = [];
    instanceB.on('message.received', (event) => void ranOnB.push(event.id));

    const delivery = await signedDelivery();
    const request = { body: delivery.body, headers: delivery.headers, method: 'POST' };
    const first = instanceA.handle(request);
    await firstStarted;
    const during = await instanceB.handle(request);
    expect(during.status).toBe(409);
    expect(JSON.parse(during.body).error.reason).toBe('duplicate_in_progress');

    release(true);
    expect((await first).status).toBe(200);
    const after = await instanceB.handle(request);
    expect([after.status, JSON.parse(after.body)]).toEqual([200, { received: true, duplicate: true }]);
    expect(ranOnB).toEqual([]);
  });

  it('runs on the other instance once the first failed and gave the id back', async () => {
    const shared = new MemoryDuplicateStore();
    const instanceA = new Webhooks({ secret: SECRET, dedupe: new DuplicateGuard(shared) });
    instanceA.on('message.received', () => {
      throw new Error('down');
    });
    const instanceB = new Webhooks({ secret: SECRET, dedupe: new DuplicateGuard(shared) });
    const ranOnB: string[] = [];
    instanceB.on('message.received', (event) => void ranOnB.push(event.id));
    const delivery = await signedDelivery();
    const request = { body: delivery.body, headers: delivery.headers, method: 'POST' };
    expect((await instanceA.handle(request)).status).toBe(500);
    expect((await instanceB.handle(request)).status).toBe(200);
    expect(ranOnB).toHaveLength(1);
  });

  it('MemoryDuplicateStore records success only for a live claim, and forgets it on release', async () => {
    const store = new MemoryDuplicateStore();
    await store.markDone('never-claimed');
    expect(await store.isDone('never-claimed')).toBe(false);
    expect(await store.claim('a')).toBe(true);
    expect(await store.isDone('a')).toBe(false);
    await store.markDone('a');
    expect(await store.isDone('a')).toBe(true);
    await store.release('a');
    expect(await store.isDone('a')).toBe(false);
  });
});
