import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/domain/errors.js';
import { runIdempotentInSteps } from '../../src/store/idempotent.js';
import { openStore } from '../../src/store/open.js';
import type { IdempotentCall } from '../../src/store/queries/idempotency.js';
import { BACKENDS, createEmptyPostgres, openThrowawayPostgres } from '../support/backends.js';
import { holdEveryConnection } from '../support/hold-connections.js';
import { seedWorkspace } from '../support/workspaces.js';

describe.each(BACKENDS)('a repeat waiting for a first call in steps on $name', (backend) => {
  it('gives up after the wait’s number of polls even when the injected clock stands still', async () => {
    const store = await backend.open();
    try {
      const frozen = Date.now();
      const workspaceId = await seedWorkspace(store.db, { createdAt: frozen });
      const call: IdempotentCall = { workspaceId, key: 'k1', fingerprint: 'f1', now: frozen };
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let runs = 0;
      // The first call holds the key until it is released (as one waiting on a peer would).
      const first = runIdempotentInSteps(
        store.db,
        call,
        async () => {
          runs++;
          await held;
          return { status: 200, body: { ok: true } };
        },
        () => frozen,
      );
      while (runs === 0) await new Promise((resolve) => setTimeout(resolve, 5));

      const started = performance.now();
      const repeat = runIdempotentInSteps(
        store.db,
        call,
        async () => {
          runs++;
          return { status: 200, body: { ok: false } };
        },
        () => frozen,
        undefined,
        { waitMs: 200, pollMs: 10, maxPollMs: 10 },
      );
      // Without the bound on polls, a clock that never moves would keep the repeat polling for ever.
      await expect(repeat).rejects.toSatisfy(
        (error) => error instanceof ServiceError && error.code === 'service_unavailable',
      );
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(runs).toBe(1);

      release();
      await expect(first).resolves.toEqual({ status: 200, body: { ok: true }, replayed: false });
    } finally {
      await store.close();
    }
  });
});

describe.each(BACKENDS)(
  'repeats waiting on a first call that waits on a silent peer, on $name',
  (backend) => {
    it('look at the key less and less often, so that a wait costs a few dozen statements', async () => {
      const store = await backend.open();
      try {
        const now = Date.now();
        const workspaceId = await seedWorkspace(store.db, { createdAt: now });
        const call: IdempotentCall = { workspaceId, key: 'k-silent', fingerprint: 'f1', now };
        let release: () => void = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let started = false;
        const first = runIdempotentInSteps(
          store.db,
          call,
          async () => {
            started = true;
            await held;
            return { status: 200, body: { ok: true } };
          },
          () => now,
        );
        while (!started) await new Promise((resolve) => setTimeout(resolve, 5));

        let statements = 0;
        const counted = new Proxy(store.db, {
          get(target, name, receiver) {
            const member = Reflect.get(target, name, receiver);
            if (name !== 'query' || typeof member !== 'function') return member;
            return (...args: unknown[]) => {
              statements++;
              return member.apply(target, args);
            };
          },
        });
        // A second of waiting: polled every 10 ms that would be a hundred looks of two statements each.
        const repeat = runIdempotentInSteps(
          counted,
          call,
          async () => ({ status: 200, body: { ok: false } }),
          () => now,
          undefined,
          { waitMs: 1_000, pollMs: 10, maxPollMs: 160 },
        );
        await expect(repeat).rejects.toSatisfy(
          (error) => error instanceof ServiceError && error.code === 'service_unavailable',
        );
        expect(statements).toBeGreaterThan(0);
        expect(statements).toBeLessThanOrEqual(30);

        release();
        await expect(first).resolves.toEqual({ status: 200, body: { ok: true }, replayed: false });
      } finally {
        await store.close();
      }
    });
  },
);

describe('a call in steps on PostgreSQL whose connections are all taken once it has run', () => {
  it('still records its answer, waiting for a connection past the request limit', async () => {
    const store = await openThrowawayPostgres();
    try {
      const now = Date.now();
      const workspaceId = await seedWorkspace(store.db, { createdAt: now });
      const call: IdempotentCall = { workspaceId, key: 'k-busy', fingerprint: 'f1', now };
      const limited = store.db.withWaitLimit(100);
      const outcome = runIdempotentInSteps(
        limited,
        call,
        async () => {
          // The operation is done; the pool stays taken for longer than the request may wait.
          const giveBack = await holdEveryConnection(store.db);
          setTimeout(() => void giveBack(), 500);
          return { status: 200, body: { ok: true } };
        },
        () => now,
      );
      await expect(outcome).resolves.toEqual({ status: 200, body: { ok: true }, replayed: false });
      const rows = await store.db.query<{ response_status: number }>(
        'SELECT response_status FROM idempotency_keys WHERE workspace_id = $1 AND key = $2',
        [workspaceId, call.key],
      );
      expect(rows).toEqual([{ response_status: 200 }]);
    } finally {
      await store.close();
    }
  });
});

describe('a call in steps on PostgreSQL with a lock timeout set by its operator', () => {
  it('records its answer past the timeout, so that a repeat replays it instead of running again', async () => {
    const database = await createEmptyPostgres();
    const url = new URL(database.url);
    url.searchParams.set('options', '-c lock_timeout=200');
    const store = await openStore({ databaseUrl: url.href, dataDir: '/nonexistent' });
    const locker = new pg.Client({ connectionString: database.url });
    try {
      await locker.connect();
      const now = Date.now();
      const workspaceId = await seedWorkspace(store.db, { createdAt: now });
      const call: IdempotentCall = { workspaceId, key: 'k-locked', fingerprint: 'f1', now };
      const limited = store.db.withWaitLimit(5_000);
      let runs = 0;
      const operation = async () => {
        runs++;
        // Once it has run, something else holds the key's row for longer than the lock timeout.
        await locker.query('BEGIN');
        await locker.query('SELECT 1 FROM idempotency_keys WHERE key = $1 FOR SHARE', [call.key]);
        setTimeout(() => void locker.query('ROLLBACK'), 600);
        return { status: 200, body: { runs } };
      };
      await expect(runIdempotentInSteps(limited, call, operation, () => now)).resolves.toEqual({
        status: 200,
        body: { runs: 1 },
        replayed: false,
      });
      await expect(runIdempotentInSteps(limited, call, operation, () => now)).resolves.toEqual({
        status: 200,
        body: { runs: 1 },
        replayed: true,
      });
      expect(runs).toBe(1);
    } finally {
      await locker.end().catch(() => {});
      await store.close();
      await database.drop();
    }
  });
});
