import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DELIVERY_CHANNEL, insertEvents } from '../../src/store/queries/events.js';
import { setEndpointStatus } from '../../src/store/queries/webhook-endpoints.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { seedWorkspace } from '../support/workspaces.js';

describe.each(BACKENDS)('a burst of events in one statement on $name', (backend) => {
  it('writes every event an endpoint takes and exactly the outbox rows the rules ask for, and wakes the workers once', async () => {
    const store = await backend.open();
    try {
      const box = createSecretBox(randomBytes(32));
      const on = await seedWorkspace(store.db);
      const off = await seedWorkspace(store.db, { webhooksEnabled: false });
      const live = await seedActiveEndpoint(store.db, box, on, 'https://hooks.example.com/a');
      const paused = await seedActiveEndpoint(store.db, box, on, 'https://hooks.example.com/b');
      await setEndpointStatus(store.db, on, paused.id, 'paused', Date.now());
      const filtered = await seedActiveEndpoint(store.db, box, on, 'https://hooks.example.com/c');
      await store.db.query(`UPDATE webhook_endpoints SET events = '{contact.approved}' WHERE id = $1`, [
        filtered.id,
      ]);
      await seedActiveEndpoint(store.db, box, off, 'https://hooks.example.com/d');

      const notified: string[] = [];
      const stop = await store.db.listen(DELIVERY_CHANNEL, (payload) => notified.push(payload));
      const before = notified.length;
      const events = await store.db.transaction((tx) =>
        insertEvents(tx, [
          ...Array.from({ length: 300 }, (_, i) => ({
            workspaceId: on,
            identity: 'alice',
            type: 'integration.created' as const,
            data: { integration: `i${i}` },
            createdAt: Date.now(),
          })),
          ...Array.from({ length: 100 }, () => ({
            workspaceId: on,
            identity: 'alice',
            type: 'contact.approved' as const,
            data: { contact: 'sha256:00' },
            createdAt: Date.now(),
          })),
          ...Array.from({ length: 50 }, () => ({
            workspaceId: off,
            identity: 'bob',
            type: 'integration.created' as const,
            data: { integration: 'x' },
            createdAt: Date.now(),
          })),
        ]),
      );
      expect(events).toHaveLength(450);
      expect(new Set(events.map((event) => event.id)).size).toBe(450);

      // The workspace with webhooks off keeps none of its 50: no endpoint takes them.
      const stored = await store.db.query<{ id: string }>('SELECT id FROM events ORDER BY id');
      expect(stored.map((row) => row.id)).toEqual(
        events
          .slice(0, 400)
          .map((event) => event.id)
          .sort(),
      );
      const rows = await store.db.query<{ endpoint_id: string; event_type: string; n: number }>(
        `SELECT endpoint_id, event_type, count(*)::int AS n FROM webhook_deliveries
          WHERE status = 'pending' GROUP BY endpoint_id, event_type ORDER BY endpoint_id, event_type`,
      );
      expect(rows).toEqual(
        [
          { endpoint_id: live.id, event_type: 'contact.approved', n: 100 },
          { endpoint_id: live.id, event_type: 'integration.created', n: 300 },
          { endpoint_id: filtered.id, event_type: 'contact.approved', n: 100 },
        ].sort((x, y) => (x.endpoint_id + x.event_type).localeCompare(y.endpoint_id + y.event_type)),
      );
      // The body is the exact signed text, carrying the event's own id.
      const [one] = await store.db.query<{ id: string; body: string }>('SELECT id, body FROM events LIMIT 1');
      expect(JSON.parse(one!.body).id).toBe(one!.id);

      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(notified.length - before).toBe(1);
      await stop();
    } finally {
      await store.close();
    }
  });

  it('stores no event that no endpoint takes, answers its id all the same, and wakes no worker for it', async () => {
    const store = await backend.open();
    try {
      const box = createSecretBox(randomBytes(32));
      const taking = await seedWorkspace(store.db);
      const bare = await seedWorkspace(store.db);
      const narrow = await seedWorkspace(store.db);
      await seedActiveEndpoint(store.db, box, taking, 'https://hooks.example.com/taking');
      // Each of narrow's endpoints passes the event over: its filter, its status, its creation after it.
      await seedActiveEndpoint(store.db, box, narrow, 'https://hooks.example.com/filter', [
        'contact.approved',
      ]);
      const paused = await seedActiveEndpoint(store.db, box, narrow, 'https://hooks.example.com/paused');
      await setEndpointStatus(store.db, narrow, paused.id, 'paused', Date.now());
      await seedActiveEndpoint(
        store.db,
        box,
        narrow,
        'https://hooks.example.com/later',
        [],
        Date.now() + 60_000,
      );
      const made = (workspaceId: string) => ({
        workspaceId,
        identity: 'alice',
        type: 'integration.created' as const,
        data: { integration: 'x' },
        createdAt: Date.now(),
      });

      const notified: string[] = [];
      const stop = await store.db.listen(DELIVERY_CHANNEL, (payload) => notified.push(payload));
      const before = notified.length;
      const untaken = await insertEvents(store.db, [made(bare), made(narrow)]);
      expect(untaken.map((event) => event.id)).toEqual([
        expect.stringMatching(/^evt_/),
        expect.stringMatching(/^evt_/),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(notified.length - before).toBe(0);
      await stop();

      const [taken] = await insertEvents(store.db, [made(taking), made(bare), made(narrow)]);
      const stored = await store.db.query<{ id: string; workspace_id: string }>(
        'SELECT id, workspace_id FROM events',
      );
      expect(stored).toEqual([{ id: taken!.id, workspace_id: taking }]);
      const [rows] = await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries');
      expect(rows!.n).toBe(1);
    } finally {
      await store.close();
    }
  });
});
