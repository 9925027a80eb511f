import { NOT_SENT_PAUSED } from '@svc-kit/contract';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningDelivery, startDelivery } from '../../src/delivery/start.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { testContext } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { seedWorkspace } from '../support/workspaces.js';
import { eventually } from './support.js';

const ROWS = 200;
const SLOTS = 8;

// A claim settles one batch of a paused endpoint's rows (migration 0024), so that no claim is a long
// statement that every tenant's reads wait behind on PGlite. The worker claims again at once while rows are
// left to settle: with a poll too slow to help, the whole backlog is still settled, a batch per claim.
describe.each(BACKENDS)('a paused endpoint with a backlog, on $name', (backend) => {
  const store = useStore(backend);
  let delivery: RunningDelivery | undefined;
  // Registered after the store's own hooks, so it runs first: the worker stops before the store closes.
  afterAll(async () => {
    await delivery?.stop();
  });

  it('has its backlog settled a batch per claim, without waiting for the poll', async () => {
    const ctx = testContext(store);
    const workspaceId = await seedWorkspace(store.db);
    const { id } = await seedActiveEndpoint(
      store.db,
      ctx.secretBox,
      workspaceId,
      'https://hooks.example.com/',
    );
    await store.db.query(
      `WITH ev AS (
         INSERT INTO events (id, workspace_id, identity, type, body, created_at)
         SELECT 'evt_settle_' || g, $1, 'settle', 'integration.created', '{}', $3::bigint + g
           FROM generate_series(1, $4::integer) g
         RETURNING id, type, created_at
       )
       INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status, created_at)
       SELECT webhook_delivery_id(ev.id, $2), $1, $2, ev.id, ev.type, 1, 'pending', ev.created_at FROM ev`,
      [workspaceId, id, Date.now(), ROWS],
    );
    await store.db.query(`UPDATE webhook_endpoints SET status = 'paused' WHERE id = $1`, [id]);

    delivery = await startDelivery(ctx, pino({ level: 'silent' }), {
      concurrency: SLOTS,
      pollIntervalMs: 600_000,
    });
    const statuses = await eventually(
      () =>
        store.db.query<{ status: string; n: number }>(
          'SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status',
        ),
      (rows) => rows.length === 1 && rows[0]?.status === NOT_SENT_PAUSED,
    );
    expect(statuses).toEqual([{ status: NOT_SENT_PAUSED, n: ROWS }]);
  });
});
