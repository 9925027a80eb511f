import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { openPglite } from '../../src/store/pglite.js';
import { EmbeddedDatabaseError } from '../../src/store/pglite-init.js';

describe('PGlite on its own thread', () => {
  let db: Db;

  beforeAll(async () => {
    db = await openPglite(undefined);
    await db.exec('CREATE TABLE t (id integer PRIMARY KEY, at bigint, tags text[], raw bytea)');
  });
  afterAll(async () => {
    await db?.close();
  });

  it('round-trips parameters and column types (BIGINT as a number, arrays, bytes)', async () => {
    await db.query('INSERT INTO t VALUES ($1, $2, $3, $4)', [
      1,
      1_700_000_000_123,
      ['a', 'b'],
      Buffer.from([0, 255]),
    ]);
    const [row] = await db.query<{ id: number; at: number; tags: string[]; raw: Uint8Array }>(
      'SELECT * FROM t WHERE id = 1',
    );
    expect(row).toEqual({ id: 1, at: 1_700_000_000_123, tags: ['a', 'b'], raw: Buffer.from([0, 255]) });
  });

  it("keeps a failed statement's SQLSTATE code and fields", async () => {
    const failure = await db.query('INSERT INTO t (id) VALUES (1)').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).toMatchObject({ code: '23505', constraint: 't_pkey', table: 't' });
    expect((failure as Error).message).toMatch(/duplicate key/);
  });

  it('runs statements sent together in the order they were made, each failing on its own', async () => {
    await db.exec('CREATE TABLE seq (n integer PRIMARY KEY, at bigserial)');
    const made = Array.from({ length: 50 }, (_, i) =>
      db.query('INSERT INTO seq (n) VALUES ($1)', [i === 25 ? 0 : i]),
    );
    const settled = await Promise.allSettled(made);
    expect(settled.filter((outcome) => outcome.status === 'rejected')).toHaveLength(1);
    expect(settled[25]).toMatchObject({ status: 'rejected', reason: { code: '23505' } });
    const rows = await db.query<{ n: number }>('SELECT n FROM seq ORDER BY at');
    expect(rows.map((row) => row.n)).toEqual(Array.from({ length: 50 }, (_, i) => i).filter((i) => i !== 25));
  });

  it('rolls a transaction back when its callback throws, and makes other statements wait for it', async () => {
    const outcome = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (2)');
        throw new Error('changed my mind');
      })
      .catch((error: Error) => error.message);
    expect(outcome).toBe('changed my mind');
    expect(await db.query('SELECT id FROM t WHERE id = 2')).toEqual([]);

    let release!: () => void;
    const holding = new Promise<void>((resolve) => (release = resolve));
    const committed = db.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (3)');
      await holding;
    });
    // Issued while the transaction is open: answered only after its commit, and sees its row.
    const outside = db.query<{ n: number }>('SELECT count(*)::int AS n FROM t WHERE id = 3');
    let answered = false;
    void outside.then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    release();
    await committed;
    expect(await outside).toEqual([{ n: 1 }]);
  });

  it('delivers a notification to listeners at commit, and not after they stop listening', async () => {
    const heard: string[] = [];
    const stop = await db.listen('chan', () => heard.push('a'));
    await db.transaction(async (tx) => {
      await tx.query("SELECT pg_notify('chan', '')");
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(heard).toEqual([]);
    });
    await expect.poll(() => heard).toEqual(['a']);
    await stop();
    await db.query("SELECT pg_notify('chan', '')");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toEqual(['a']);
  });

  it('leaves the event loop free while a long statement runs', async () => {
    let timerFired = false;
    const timer = setTimeout(() => (timerFired = true), 5);
    // Hundreds of milliseconds of WebAssembly: on the main thread the timer could only fire after it.
    const [row] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM generate_series(1, 3000000) g WHERE g % 7 = 0',
    );
    const firedDuringStatement = timerFired;
    clearTimeout(timer);
    expect(row?.n).toBe(428_571);
    expect(firedDuringStatement).toBe(true);
  });

  it('keeps nothing of the answers it handed back', async () => {
    // 1,000 answers of 100 kB: a thread that kept them would need 100 MB of heap, four times its cap here.
    const capped = await openPglite(undefined, { threadHeapLimitMb: 24 });
    try {
      for (let i = 0; i < 1_000; i++) {
        const [row] = await capped.query<{ s: string }>("SELECT repeat('x', 100000) AS s");
        expect(row?.s).toHaveLength(100_000);
      }
    } finally {
      await capped.close();
    }
  });

  it('rejects with a typed error once closed', async () => {
    const other = await openPglite(undefined);
    await other.close();
    await expect(other.query('SELECT 1')).rejects.toBeInstanceOf(EmbeddedDatabaseError);
    await expect(other.transaction(async () => 1)).rejects.toBeInstanceOf(EmbeddedDatabaseError);
  });
});
