import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DELIVERIES_PER_WORKSPACE,
  WORKSPACE_BACKLOG_MS,
  WORKSPACE_PACE_PREFIX,
} from '../../src/domain/delivery-limits.js';
import { RateLimitedError } from '../../src/domain/errors.js';
import type { Db, Queryable } from '../../src/store/db.js';
import { insertEvent, type NewEvent } from '../../src/store/queries/events.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { TurnBatch } from '../../src/store/turn-batch.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { seedWorkspace } from '../support/workspaces.js';

/** The pool with its event inserts counted (a pool still: it keeps `transaction`). */
function counted(db: Db): { db: Db; inserts: () => number } {
  let inserts = 0;
  const count = (target: Queryable): Queryable['query'] =>
    async function query<Row extends object>(sql: string, params?: readonly unknown[]) {
      if (sql.includes('INSERT INTO events')) inserts++;
      return target.query<Row>(sql, params);
    };
  return {
    db: {
      ...db,
      query: count(db),
      transaction: (fn) => db.transaction((tx) => fn({ ...tx, query: count(tx) })),
    },
    inserts: () => inserts,
  };
}

/** A workspace with an endpoint taking every event: only an event some endpoint takes is stored. */
async function seedTakingWorkspace(db: Db): Promise<string> {
  const workspaceId = await seedWorkspace(db);
  await seedActiveEndpoint(db, createSecretBox(randomBytes(32)), workspaceId, 'https://hooks.example.com/e');
  return workspaceId;
}

const event = (workspaceId: string, i: number): NewEvent => ({
  workspaceId,
  identity: 'alice',
  type: 'integration.created',
  data: { integration: `i${i}` },
  createdAt: Date.now(),
});

describe.each(BACKENDS)('events written outside a transaction on $name', (backend) => {
  it('share one statement when made in the same turn, each with its own id', async () => {
    const store = await backend.open();
    try {
      const ws = await seedTakingWorkspace(store.db);
      const { db, inserts } = counted(store.db);
      const written = await Promise.all(Array.from({ length: 20 }, (_, i) => insertEvent(db, event(ws, i))));
      expect(new Set(written.map((row) => row.id)).size).toBe(20);
      expect(inserts()).toBe(1);
      const rows = await store.db.query<{ id: string }>('SELECT id FROM events WHERE workspace_id = $1', [
        ws,
      ]);
      expect(rows.map((row) => row.id).sort()).toEqual(written.map((row) => row.id).sort());
    } finally {
      await store.close();
    }
  });

  it('are never gathered inside a transaction: they commit or roll back with it', async () => {
    const store = await backend.open();
    try {
      const ws = await seedTakingWorkspace(store.db);
      const { db, inserts } = counted(store.db);
      await expect(
        db.transaction(async (tx) => {
          await Promise.all([insertEvent(tx, event(ws, 1)), insertEvent(tx, event(ws, 2))]);
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      expect(inserts()).toBe(2);
      const [left] = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events');
      expect(left!.n).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('fail alone when the database refuses one of them, the others written', async () => {
    const store = await backend.open();
    try {
      const ws = await seedTakingWorkspace(store.db);
      const outcomes = await Promise.allSettled([
        insertEvent(store.db, event(ws, 1)),
        // No identity: the column's NOT NULL refuses it (an event of no workspace is taken by no endpoint,
        // so it is not written at all, and its foreign key never refuses it).
        insertEvent(store.db, { ...event(ws, 2), identity: null as unknown as string }),
        insertEvent(store.db, event(ws, 3)),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(((outcomes[1] as PromiseRejectedResult).reason as { code?: string }).code).toBe('23502');
      const [written] = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events');
      expect(written!.n).toBe(2);
    } finally {
      await store.close();
    }
  });

  it('are refused alone when their workspace is past its backlog bound, the others of the batch written', async () => {
    const store = await backend.open();
    try {
      const [behind, other] = [await seedTakingWorkspace(store.db), await seedTakingWorkspace(store.db)];
      const now = Date.now();
      // The workspace's bucket one row past the bound, as if that many rows waited for its pace.
      const debt = WORKSPACE_BACKLOG_MS * DELIVERIES_PER_WORKSPACE.perMs + 1;
      await store.db.query('INSERT INTO outbound_budgets (bucket, tokens, updated_at) VALUES ($1, $2, $3)', [
        `${WORKSPACE_PACE_PREFIX}${behind}`,
        -debt,
        now,
      ]);
      const { db, inserts } = counted(store.db);
      const at = (workspaceId: string, i: number) => ({ ...event(workspaceId, i), createdAt: now });
      const outcomes = await Promise.allSettled([
        insertEvent(db, at(other, 1)),
        insertEvent(db, at(behind, 2)),
        insertEvent(db, at(other, 3)),
        // Admitted by its caller, which looked before (the sandbox trigger does).
        insertEvent(db, at(behind, 4), 'admitted'),
      ]);
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'fulfilled',
      ]);
      const refusal = (outcomes[1] as PromiseRejectedResult).reason;
      expect(refusal).toBeInstanceOf(RateLimitedError);
      expect((refusal as RateLimitedError).retryAfterSeconds).toBe(1);
      expect(inserts()).toBe(1);
      const written = await store.db.query<{ workspace_id: string }>(
        'SELECT workspace_id FROM events ORDER BY workspace_id',
      );
      expect(written.map((row) => row.workspace_id)).toEqual([behind, other, other].sort());
    } finally {
      await store.close();
    }
  });
});

describe('a turn batch', () => {
  it('fails every call of a batch whose outcome is unknown (no SQLSTATE) and writes it only once', async () => {
    let writes = 0;
    const batch = new TurnBatch<number, number>(
      async () => {
        writes++;
        throw new Error('connection terminated');
      },
      { maxBatch: 100 },
    );
    const outcomes = await Promise.allSettled([batch.add(1), batch.add(2), batch.add(3)]);
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
    expect(writes).toBe(1);
  });

  it('fails every call of a batch refused for a reason other than its data, writing it only once', async () => {
    let writes = 0;
    const batch = new TurnBatch<number, number>(
      async () => {
        writes++;
        throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
      },
      { maxBatch: 100 },
    );
    const outcomes = await Promise.allSettled([batch.add(1), batch.add(2), batch.add(3)]);
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
    expect(writes).toBe(1);
  });

  it('writes a batch refused for its data again one call at a time, never two at once', async () => {
    let running = 0;
    let most = 0;
    const batch = new TurnBatch<number, number>(
      async (inputs) => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        if (inputs.includes(2)) throw Object.assign(new Error('bad value'), { code: '22P02' });
        return inputs.map((input) => input * 10);
      },
      { maxBatch: 100 },
    );
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map((input) => batch.add(input)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(most).toBe(1);
  });

  it('ends a batch once its calls weigh more than `maxWeight`, and still writes a heavier call alone', async () => {
    const sizes: number[][] = [];
    const batch = new TurnBatch<number, number>(
      async (inputs) => {
        sizes.push([...inputs]);
        return inputs.map((input) => input * 10);
      },
      { maxBatch: 100, maxWeight: 10, weigh: (input) => input },
    );
    expect(await Promise.all([4, 5, 3, 25, 1].map((input) => batch.add(input)))).toEqual([
      40, 50, 30, 250, 10,
    ]);
    expect(sizes).toEqual([[4, 5], [3], [25], [1]]);
  });

  it('gathers calls made while a batch is being written into the next one', async () => {
    const sizes: number[] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const batch = new TurnBatch<number, number>(
      async (inputs) => {
        sizes.push(inputs.length);
        if (sizes.length === 1) await first;
        return inputs.map((input) => input * 10);
      },
      { maxBatch: 100 },
    );
    const a = batch.add(1);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [batch.add(2), batch.add(3), batch.add(4)];
    release();
    expect(await Promise.all([a, ...rest])).toEqual([10, 20, 30, 40]);
    expect(sizes).toEqual([1, 3]);
  });

  it('runs up to `inFlight` batches at once, the calls of each turn a batch of their own, and no more', async () => {
    const sizes: number[] = [];
    const releases: (() => void)[] = [];
    const batch = new TurnBatch<number, number>(
      async (inputs) => {
        sizes.push(inputs.length);
        await new Promise<void>((resolve) => releases.push(resolve));
        return inputs.map((input) => input * 10);
      },
      { maxBatch: 100, inFlight: 2 },
    );
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const calls = [batch.add(1), batch.add(2)];
    await nextTurn();
    calls.push(batch.add(3));
    await nextTurn();
    // Two batches in flight: the third turn's calls wait for a writer to come free.
    calls.push(batch.add(4), batch.add(5));
    await nextTurn();
    expect(sizes).toEqual([2, 1]);
    releases[0]!();
    await calls[0];
    await nextTurn();
    expect(sizes).toEqual([2, 1, 2]);
    releases[1]!();
    releases[2]!();
    expect(await Promise.all(calls)).toEqual([10, 20, 30, 40, 50]);
  });
});
