import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/store/db.js';
import { claimDeliveries, recordSuccesses } from '../../src/store/queries/deliveries-claim.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { useStore } from '../support/service-lifecycle.js';
import { seedWorkspace } from '../support/workspaces.js';

const WORKER = 'wkr_cost';

/**
 * Pending deliveries for `count` events to every endpoint of the workspace, written in one statement: the
 * history is what matters here, not the fan-out (tested with the worker).
 */
async function queueDeliveries(db: Queryable, workspaceId: string, count: number): Promise<void> {
  const batch = randomBytes(4).toString('hex');
  await db.query(
    `WITH ev AS (
       INSERT INTO events (id, workspace_id, identity, type, body, created_at)
       SELECT 'evt_' || $2 || '_' || g, $1, 'cost', 'integration.created', '{}', $3::bigint + g
         FROM generate_series(1, $4::integer) g
       RETURNING id, type, created_at
     )
     INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status, created_at)
     SELECT 'dlv_' || replace(gen_random_uuid()::text, '-', ''), $1, e.id, ev.id, ev.type, 1, 'pending', ev.created_at
       FROM ev CROSS JOIN webhook_endpoints e WHERE e.workspace_id = $1`,
    [workspaceId, batch, Date.now(), count],
  );
}

/** A claim of `limit` rows whose caps never bind (this file measures the log, not the caps). */
function claimOf(limit: number) {
  return {
    limit,
    workerId: WORKER,
    now: Date.now(),
    liveSince: 0,
    caps: { endpoint: 1_000, workspace: 1_000 },
    answered: [],
  };
}

/** Claims and logs as the worker does: claims of 192, successes in batches of 24, each its own statement. */
async function deliverAll(db: Queryable): Promise<void> {
  for (;;) {
    const { rows } = await claimDeliveries(db, claimOf(192));
    if (rows.length === 0) return;
    for (let i = 0; i < rows.length; i += 24) {
      await recordSuccesses(
        db,
        rows
          .slice(i, i + 24)
          .map((row) => ({ deliveryId: row.id, httpStatus: 200, latencyMs: 1, excerpt: 'ok' })),
      );
    }
  }
}

/** The pages one success batch reads and writes, from the executor's own count (unlike time, not noisy). */
async function pagesToLogOne(db: Queryable, workspaceId: string): Promise<number> {
  await queueDeliveries(db, workspaceId, 1);
  const { rows } = await claimDeliveries(db, claimOf(1));
  expect(rows).toHaveLength(1);
  const [explained] = await db.query<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
    'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT record_webhook_successes($1, $2, $3, $4)',
    [[rows[0]!.id], [200], [1], ['ok']],
  );
  const { Plan: plan } = explained!['QUERY PLAN'][0];
  const [logged] = await db.query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE id = $1', [
    rows[0]!.id,
  ]);
  expect(logged?.status).toBe('delivered');
  return (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
}

/**
 * The fewest pages of five one-row batches. Now and then a batch also looks for room for the row's new
 * version, when the heap page it writes to is full (measured: 4 to 29 more pages, in a few batches of a
 * hundred, all of them heap pages where counted): that cost is the write's, not the lookup's. A lookup that grows
 * with history costs more in every batch, so the fewest still shows it.
 */
async function fewestPagesToLogOne(db: Queryable, workspaceId: string): Promise<number> {
  let fewest = Number.POSITIVE_INFINITY;
  for (let sample = 0; sample < 5; sample++) fewest = Math.min(fewest, await pagesToLogOne(db, workspaceId));
  return fewest;
}

describe.each(BACKENDS)('the success log on $name', (backend) => {
  const store = useStore(backend);
  let workspaceId: string;

  beforeAll(async () => {
    workspaceId = await seedWorkspace(store.db, { createdAt: Date.now() - 60_000 });
    await seedActiveEndpoint(
      store.db,
      createSecretBox(randomBytes(32)),
      workspaceId,
      'https://hooks.example.com/',
    );
  });

  // Before PostgreSQL 18 a SQL function's statement is parsed and planned at every call: on the worker's hot
  // path, with claims of a few rows, that was half the functions' time (migration 0015). A PL/pgSQL
  // function keeps its statement for the connection's life on every version.
  it('runs the claim and the success log as PL/pgSQL functions', async () => {
    const rows = await store.db.query<{ proname: string; lanname: string }>(
      `SELECT p.proname, l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
        WHERE p.proname IN ('claim_webhook_deliveries', 'record_webhook_successes') ORDER BY p.proname`,
    );
    expect(rows).toEqual([
      { proname: 'claim_webhook_deliveries', lanname: 'plpgsql' },
      { proname: 'record_webhook_successes', lanname: 'plpgsql' },
    ]);
  });

  // Each sent row leaves an entry in the partial index of `sending` rows until VACUUM; a batch that reached
  // its rows through that index read one more page for every ~30 past deliveries (migration 0007).
  it('costs the same number of pages per batch after 200 and after 4,000 past deliveries', async () => {
    await queueDeliveries(store.db, workspaceId, 200);
    await deliverAll(store.db);
    const early = await fewestPagesToLogOne(store.db, workspaceId);

    await queueDeliveries(store.db, workspaceId, 3_800);
    await deliverAll(store.db);
    const late = await fewestPagesToLogOne(store.db, workspaceId);

    expect(early).toBeGreaterThan(0);
    // A deeper primary-key index costs a page or two more; 3,800 more dead index entries cost 120 or more.
    expect(late).toBeLessThanOrEqual(early + 15);
  });
});
