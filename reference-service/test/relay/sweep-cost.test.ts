// The relay's sweep of abandoned listeners runs every minute on every instance, over every tenant's
// endpoints. Removed endpoints and listeners stay rows for the retention window, so the sweep must read
// only the live listeners, not the table: otherwise each tenant's churn slows the one connection of PGlite
// (and a PostgreSQL connection) for everyone, once a minute.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenedStore } from '../../src/store/open.js';
import { LISTENER_URL, removeAbandonedListeners, touchListeners } from '../../src/store/queries/listeners.js';
import { BACKENDS } from '../support/backends.js';
import { seedWorkspace } from '../support/workspaces.js';

const REMOVED = 20_000;

describe.each(BACKENDS)('the abandoned listeners’ sweep, on $name', (backend) => {
  let store: OpenedStore;

  beforeAll(async () => {
    store = await backend.open();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('reads a few pages whatever the number of removed endpoints and listeners', async () => {
    const now = Date.now();
    const workspaceId = await seedWorkspace(store.db);
    await store.db.query(
      `INSERT INTO webhook_endpoints (id, workspace_id, url, events, status, created_at, updated_at, deleted_at,
                                      listener_seen_at)
       SELECT 'whk_gone' || g, $1, $2, '{}', 'active', $3, $3, $3, $3 FROM generate_series(1, $4) g`,
      [workspaceId, LISTENER_URL, now - 60_000, REMOVED],
    );
    await store.db.query(
      `INSERT INTO webhook_endpoints (id, workspace_id, url, events, status, created_at, updated_at, listener_seen_at)
       SELECT 'whk_live' || g, $1, $2, '{}', 'active', $3, $3, $3 FROM generate_series(1, 3) g`,
      [workspaceId, LISTENER_URL, now],
    );
    await store.db.exec('ANALYZE webhook_endpoints');

    // The sweep's own statement, explained as it runs (nothing is old enough to be removed).
    const [explained] = await store.db.query<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
       UPDATE webhook_endpoints SET deleted_at = $2
        WHERE url = '${LISTENER_URL}' AND deleted_at IS NULL AND listener_seen_at < $1`,
      [now - 600_000, now],
    );
    const { Plan: plan } = explained!['QUERY PLAN'][0];
    const pages = (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
    // The removed rows fill a few hundred pages; the live listeners fit in one, with an index page or two.
    expect(pages).toBeLessThan(10);
    expect(await removeAbandonedListeners(store.db, now - 600_000, now)).toBe(0);
  });

  it('leaves the streams’ touches heap-only, so their old versions need no vacuum', async () => {
    const workspaceId = await seedWorkspace(store.db);
    const now = Date.now();
    await store.db.query(
      `INSERT INTO webhook_endpoints (id, workspace_id, url, events, status, created_at, updated_at, listener_seen_at)
       VALUES ('whk_touched', $1, $2, '{}', 'active', $3, $3, $3)`,
      [workspaceId, LISTENER_URL, now],
    );
    const hot = await store.db.transaction(async (tx) => {
      await touchListeners(tx, ['whk_touched'], now + 5_000);
      const [row] = await tx.query<{ n: number }>(
        "SELECT pg_stat_get_xact_tuples_hot_updated('webhook_endpoints'::regclass)::int AS n",
      );
      return row!.n;
    });
    expect(hot).toBe(1);
  });
});
