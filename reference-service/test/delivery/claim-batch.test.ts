import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningDelivery, startDelivery } from '../../src/delivery/start.js';
import { CLAIM_BATCH } from '../../src/delivery/worker.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { testContext } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { startTarpit, type Tarpit } from '../support/tarpit.js';
import { seedWorkspace } from '../support/workspaces.js';
import { eventually } from './support.js';

const WORKSPACES = 3;
const ENDPOINTS_EACH = 2;
const ROWS_EACH = 25;
const TOTAL = WORKSPACES * ENDPOINTS_EACH * ROWS_EACH;

// Rows due at once for several tenants, more than one claim may dial: a worker with room for all of them
// still takes them a bounded batch per claim, so that on PGlite no tenant's statement waits behind one claim
// of a whole worker's slots. Every row is still delivered once.
describe.each(BACKENDS)('a burst for several tenants, on $name', (backend) => {
  const store = useStore(backend);
  let delivery: RunningDelivery | undefined;
  let receiver: Tarpit | undefined;
  afterAll(async () => {
    await delivery?.stop();
    await receiver?.close();
  });

  it('is claimed in batches of at most CLAIM_BATCH rows', async () => {
    receiver = await startTarpit({ holdMs: 0 });
    // A clock that never reads the same twice: each claim's stamp names that claim alone.
    let tick = 0;
    const ctx = testContext(store, { allowLocalhostWebhooks: true, now: () => Date.now() + ++tick });
    const now = Date.now();
    for (let w = 0; w < WORKSPACES; w++) {
      const workspaceId = await seedWorkspace(store.db);
      for (let e = 0; e < ENDPOINTS_EACH; e++) {
        const { id } = await seedActiveEndpoint(
          store.db,
          ctx.secretBox,
          workspaceId,
          receiver.url(`/${w}/${e}`),
        );
        await store.db.query(
          `WITH ev AS (
             INSERT INTO events (id, workspace_id, identity, type, body, created_at)
             SELECT 'evt_batch_' || $2 || '_' || g, $1, 'batch', 'integration.created', '{}', $3::bigint + g
               FROM generate_series(1, $4::integer) g
             RETURNING id, type, created_at
           )
           INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status, created_at)
           SELECT webhook_delivery_id(ev.id, $2), $1, $2, ev.id, ev.type, 1, 'pending', ev.created_at FROM ev`,
          [workspaceId, id, now, ROWS_EACH],
        );
      }
    }

    delivery = await startDelivery(ctx, pino({ level: 'silent' }), { pollIntervalMs: 600_000 });
    await eventually(
      () =>
        store.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'delivered'`,
        ),
      (rows) => rows[0]?.n === TOTAL,
    );
    // A claim stamps its rows with its own time: one group per claim.
    const claims = await store.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries GROUP BY claimed_by, claimed_at ORDER BY 1 DESC`,
    );
    expect(claims[0]?.n).toBeLessThanOrEqual(CLAIM_BATCH);
    expect(claims.reduce((sum, claim) => sum + claim.n, 0)).toBe(TOTAL);
    expect(receiver.arrivals).toHaveLength(TOTAL);
  });
});
