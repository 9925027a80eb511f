import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { insertEvents } from '../../src/store/queries/events.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import { insertDelivery, pendingDelivery, seedActiveEndpoint } from '../support/endpoints.js';
import { seedWorkspace } from '../support/workspaces.js';

/** The derivation of migration 0017, written out independently of the database's. */
const expectedId = (eventId: string, endpointId: string) =>
  `dlv_${createHash('sha256').update(`${eventId} ${endpointId}`).digest('hex').slice(0, 24)}`;

describe.each(BACKENDS)('a delivery’s id on $name', (backend) => {
  it('is the digest of its event and endpoint, so a second row for the pair is refused', async () => {
    const store = await backend.open();
    try {
      const workspaceId = await seedWorkspace(store.db);
      const box = createSecretBox(randomBytes(32));
      const endpoints = [
        await seedActiveEndpoint(store.db, box, workspaceId, 'https://a.example.com/hooks'),
        await seedActiveEndpoint(store.db, box, workspaceId, 'https://b.example.com/hooks'),
      ];
      const events = await insertEvents(
        store.db,
        [1, 2, 3].map((n) => ({
          workspaceId,
          identity: 'ids',
          type: 'integration.created' as const,
          data: { integration: `i${n}` },
          createdAt: Date.now(),
        })),
      );
      const rows = await store.db.query<{ id: string; event_id: string; endpoint_id: string }>(
        'SELECT id, event_id, endpoint_id FROM webhook_deliveries WHERE workspace_id = $1',
        [workspaceId],
      );
      expect(rows).toHaveLength(events.length * endpoints.length);
      for (const row of rows) {
        expect(row.id).toMatch(/^dlv_[0-9a-f]{24}$/);
        expect(row.id).toBe(expectedId(row.event_id, row.endpoint_id));
      }
      expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);

      // The once rule, now kept by the primary key: the same event and endpoint again is refused whole.
      const before = await store.db.query('SELECT * FROM webhook_deliveries ORDER BY id');
      await expect(
        store.db.query(
          `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status, created_at)
           SELECT webhook_delivery_id(event_id, endpoint_id), workspace_id, endpoint_id, event_id, event_type, 1,
                  'pending', created_at
             FROM webhook_deliveries WHERE workspace_id = $1`,
          [workspaceId],
        ),
      ).rejects.toMatchObject({ code: '23505', constraint: 'webhook_deliveries_pkey' });
      // insertDelivery (tests, bench) makes its id the same way, so it is refused too.
      const [first] = rows;
      await expect(
        insertDelivery(store.db, pendingDelivery(workspaceId, first!.endpoint_id, first!.event_id)),
      ).rejects.toMatchObject({ code: '23505', constraint: 'webhook_deliveries_pkey' });
      expect(await store.db.query('SELECT * FROM webhook_deliveries ORDER BY id')).toEqual(before);
      // The key is the only index that keeps the rule: the unique index that did is gone.
      const indexes = await store.db.query<{ indexname: string }>(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'webhook_deliveries' ORDER BY indexname",
      );
      expect(indexes.map((row) => row.indexname)).toEqual([
        'webhook_deliveries_newest',
        'webhook_deliveries_pending',
        'webhook_deliveries_pkey',
        'webhook_deliveries_sending',
      ]);
    } finally {
      await store.close();
    }
  });
});
