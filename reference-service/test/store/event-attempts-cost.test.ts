import { describe, expect, it } from 'vitest';
import type { Queryable } from '../../src/store/db.js';
import {
  ATTEMPTS_OF_EVENT,
  eventWithAttempts,
  REMOVAL_SLACK_MS,
} from '../../src/store/queries/event-attempts.js';
import { insertEvents } from '../../src/store/queries/events.js';
import { pagesOf } from '../../src/store/queries/retention.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { useStore } from '../support/service-lifecycle.js';
import { seedWorkspace } from '../support/workspaces.js';

/** Rows of other events in the endpoints' logs: a few hundred heap pages, so a scan would show. */
const HISTORY = 30_000;

/** The pages the event page's read of attempts touches, from the executor's own count. */
async function pagesToRead(db: Queryable, workspaceId: string, event: { id: string; createdAt: number }) {
  const [explained] = await db.query<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${ATTEMPTS_OF_EVENT}`,
    [workspaceId, event.id, event.createdAt, REMOVAL_SLACK_MS],
  );
  const { Plan: plan } = explained!['QUERY PLAN'][0];
  return (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
}

// No index on event_id: the read finds each endpoint's row by primary key, whatever the logs hold.
describe.each(BACKENDS)('an event’s attempts read on $name', (backend) => {
  const store = useStore(backend);

  it('reads as many pages after ten times the history', async () => {
    const box = createSecretBox(Buffer.alloc(32, 7));
    const workspaceId = await seedWorkspace(store.db);
    const endpoints = [];
    for (const n of [1, 2, 3]) {
      endpoints.push(await seedActiveEndpoint(store.db, box, workspaceId, `https://hooks.example.com/${n}`));
    }
    const emit = async () => {
      const [event] = await insertEvents(store.db, [
        {
          workspaceId,
          identity: 'cost',
          type: 'integration.created',
          data: { integration: 'cost' },
          createdAt: Date.now(),
        },
      ]);
      return event!;
    };
    const first = await emit();
    const addHistory = async (from: number, rows: number) => {
      await store.db.query(
        `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status, created_at)
         SELECT webhook_delivery_id('evt_old_' || g, e.id), $1, e.id, 'evt_old_' || g, 'integration.created', 1,
                'delivered', g
           FROM generate_series($2::int, $3::int) g CROSS JOIN webhook_endpoints e WHERE e.workspace_id = $1`,
        [workspaceId, from, from + rows / endpoints.length - 1],
      );
      await store.db.query('ANALYZE');
      return pagesToRead(store.db, workspaceId, first);
    };
    const short = await addHistory(1, HISTORY / 10);
    const long = await addHistory(1 + HISTORY / 10, HISTORY - HISTORY / 10);
    const found = await eventWithAttempts(store.db, workspaceId, first.id);
    expect(found?.attempts.map((a) => a.endpoint.id)).toEqual(endpoints.map((e) => e.id));
    // Ten times the history: one more level in the primary key's tree per endpoint at most.
    expect(long).toBeLessThanOrEqual(short + endpoints.length);
    // A scan of the log would read most of its pages.
    expect(long).toBeLessThan((await pagesOf(store.db, 'webhook_deliveries')) / 10);
  }, 120_000);
});
