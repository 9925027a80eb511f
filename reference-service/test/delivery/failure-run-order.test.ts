import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createDeliveryWorker } from '../../src/delivery/worker.js';
import type { GuardedClient, PostOutcome } from '../../src/outbound/guarded-client.js';
import type { Db } from '../../src/store/db.js';
import { insertEvents } from '../../src/store/queries/events.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { seedWorkspace } from '../support/workspaces.js';
import { eventually } from './support.js';

const quiet = pino({ level: 'silent' }, new Writable({ write: (_c, _e, done) => done() }));
const EVENTS = 21;

describe.each(BACKENDS)('the failure run on $name', (backend) => {
  it('counts outcomes in the order they came: a success between failures breaks the run', async () => {
    const store = await backend.open();
    const box = createSecretBox(randomBytes(32));
    // Successes are logged in groups; here each group takes 300 ms to write, so that failures answered
    // after a success are ready to be logged before it.
    const db: Db = {
      ...store.db,
      async query<Row extends object>(sql: string, params?: readonly unknown[]) {
        if (sql.includes('record_webhook_successes')) await new Promise((r) => setTimeout(r, 300));
        return store.db.query<Row>(sql, params);
      },
    };
    // Ten failures, one success, ten failures, in that order of answers (all dialled at once).
    let dialled = 0;
    const client: GuardedClient = {
      async post(): Promise<PostOutcome> {
        const turn = dialled++;
        await new Promise((r) => setTimeout(r, 50 + turn * 10));
        return turn === 10
          ? { kind: 'answered', status: 200, excerpt: 'ok', latencyMs: 1, headers: {} }
          : { kind: 'answered', status: 500, excerpt: 'no', latencyMs: 1, headers: {} };
      },
      close: async () => {},
    };
    const workspaceId = await seedWorkspace(store.db);
    const endpoint = await seedActiveEndpoint(store.db, box, workspaceId, 'https://hooks.example.com/run');
    await store.db.transaction((tx) =>
      insertEvents(
        tx,
        Array.from({ length: EVENTS }, (_, i) => ({
          workspaceId,
          identity: 'alice',
          type: 'integration.created' as const,
          data: { integration: `run-${i}` },
          createdAt: Date.now(),
        })),
      ),
    );
    const worker = createDeliveryWorker({ db, secretBox: box, client, logger: quiet });
    try {
      await worker.start();
      const settled = await eventually(
        () =>
          store.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status IN ('delivered', 'failed')`,
          ),
        (rows) => rows[0]!.n === EVENTS,
      );
      expect(settled[0]!.n).toBe(EVENTS);
      expect(dialled).toBe(EVENTS);
      const [row] = await store.db.query<{ status: string; consecutive_failures: number }>(
        'SELECT status, consecutive_failures FROM webhook_endpoints WHERE id = $1',
        [endpoint.id],
      );
      // Twenty failures, but never twenty in a row: the run after the success is ten long.
      expect(row).toEqual({ status: 'active', consecutive_failures: 10 });
    } finally {
      await worker.stop();
      await store.close();
    }
  });
});
