import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listLiveEndpoints, setEndpointStatus } from '../../src/store/queries/webhook-endpoints.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS, openThrowawayPostgres } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { until } from '../support/until.js';
import { seedWorkspace } from '../support/workspaces.js';

/** The workspace's live endpoints as a plain read of the list finds them, in the operation's order. */
const liveEndpoints = listLiveEndpoints;

describe.each(BACKENDS)('pausing and resuming an endpoint on $name', (backend) => {
  it('answers the live endpoints as changed, in one statement', async () => {
    const store = await backend.open();
    const db = store.db;
    try {
      const box = createSecretBox(randomBytes(32));
      const workspaceId = await seedWorkspace(db);
      const endpoint = await seedActiveEndpoint(db, box, workspaceId, 'https://hooks.example.com/x');
      const other = await seedActiveEndpoint(db, box, workspaceId, 'https://hooks.example.com/y');
      const removed = await seedActiveEndpoint(db, box, workspaceId, 'https://hooks.example.com/z');
      const elsewhere = await seedActiveEndpoint(
        db,
        box,
        await seedWorkspace(db),
        'https://hooks.example.com/w',
      );
      // A failure run and a rotation under way on the changed endpoint, a filter on the other one.
      await db.query(
        'UPDATE webhook_endpoints SET consecutive_failures = 3, rotating_until = $2 WHERE id = $1',
        [endpoint.id, Date.now() + 60_000],
      );
      await db.query(
        `UPDATE webhook_endpoints SET created_at = created_at + 1, events = '{message.received}' WHERE id = $1`,
        [other.id],
      );
      await db.query('UPDATE webhook_endpoints SET deleted_at = $2 WHERE id = $1', [removed.id, Date.now()]);

      const pausedAt = Date.now();
      const paused = await setEndpointStatus(db, workspaceId, endpoint.id, 'paused', pausedAt);
      expect(paused).toEqual(await liveEndpoints(db, workspaceId));
      expect(paused?.map((row) => [row.id, row.status, row.consecutive_failures, row.updated_at])).toEqual([
        [endpoint.id, 'paused', 3, pausedAt],
        [other.id, 'active', 0, expect.any(Number)],
      ]);
      expect(paused![0]!.rotating_until).toEqual(expect.any(Number));

      const resumed = await setEndpointStatus(db, workspaceId, endpoint.id, 'active', pausedAt + 1);
      expect(resumed).toEqual(await liveEndpoints(db, workspaceId));
      expect(resumed?.map((row) => [row.id, row.status, row.consecutive_failures, row.updated_at])).toEqual([
        // A resume keeps the run (the contract's resumedFailureRun): only a delivery clears it.
        [endpoint.id, 'active', 3, pausedAt + 1],
        [other.id, 'active', 0, expect.any(Number)],
      ]);

      // Unknown, removed, or another workspace's: no answer, nothing changed.
      const before = await db.query('SELECT * FROM webhook_endpoints ORDER BY id');
      for (const [workspace, id] of [
        [workspaceId, 'whk_nope'],
        [workspaceId, removed.id],
        [workspaceId, elsewhere.id],
      ] as const) {
        expect(await setEndpointStatus(db, workspace, id, 'paused', Date.now())).toBeUndefined();
      }
      expect(await db.query('SELECT * FROM webhook_endpoints ORDER BY id')).toEqual(before);
    } finally {
      await store.close();
    }
  });
});

describe('pausing an endpoint that another transaction is changing (PostgreSQL)', () => {
  it('answers the row as the pause wrote it, over the change it waited for', async () => {
    const store = await openThrowawayPostgres();
    const db = store.db;
    try {
      const box = createSecretBox(randomBytes(32));
      const workspaceId = await seedWorkspace(db);
      const endpoint = await seedActiveEndpoint(db, box, workspaceId, 'https://hooks.example.com/x');
      const rotatingUntil = Date.now() + 60_000;
      let pausing: ReturnType<typeof setEndpointStatus> | undefined;
      // A delivery failure and a rotation hold the row while the pause is sent: the pause waits for
      // them, then writes over the row as they left it. The scan beside the UPDATE started before they
      // committed, so only the UPDATE's own row can show them.
      await db.transaction(async (tx) => {
        await tx.query(
          'UPDATE webhook_endpoints SET consecutive_failures = 4, rotating_until = $2 WHERE id = $1',
          [endpoint.id, rotatingUntil],
        );
        pausing = setEndpointStatus(db, workspaceId, endpoint.id, 'paused', Date.now());
        await until(async () => {
          const [waiting] = await db.query<{ count: number }>(
            `SELECT count(*)::int AS count FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          return waiting!.count === 1;
        });
      });
      const answered = await pausing!;
      expect(
        answered?.map((row) => [row.id, row.status, row.consecutive_failures, row.rotating_until]),
      ).toEqual([[endpoint.id, 'paused', 4, rotatingUntil]]);
      expect(answered).toEqual(await liveEndpoints(db, workspaceId));
    } finally {
      await store.close();
    }
  });
});
