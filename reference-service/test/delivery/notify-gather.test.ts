import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createDeliveryWorker } from '../../src/delivery/worker.js';
import type { GuardedClient } from '../../src/outbound/guarded-client.js';
import type { Db } from '../../src/store/db.js';
import { insertEvent } from '../../src/store/queries/events.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { seedWorkspace } from '../support/workspaces.js';
import { eventually } from './support.js';

const quiet = pino({ level: 'silent' }, new Writable({ write: (_c, _e, done) => done() }));

describe.each(BACKENDS)('notifications of new events on $name', (backend) => {
  it('wake one claim for all the events committed within the gathering window', async () => {
    const store = await backend.open();
    const box = createSecretBox(randomBytes(32));
    let claims = 0;
    const db: Db = {
      ...store.db,
      async query<Row extends object>(sql: string, params?: readonly unknown[]) {
        if (sql.includes('claim_webhook_deliveries')) claims++;
        return store.db.query<Row>(sql, params);
      },
    };
    const posted: string[] = [];
    const client: GuardedClient = {
      async post(_url, headers) {
        posted.push(String(Object.keys(headers).length));
        return { kind: 'answered', status: 200, excerpt: 'ok', latencyMs: 1, headers: {} };
      },
      close: async () => {},
    };
    const workspaceId = await seedWorkspace(store.db);
    await seedActiveEndpoint(store.db, box, workspaceId, 'https://hooks.example.com/gather');
    const worker = createDeliveryWorker({
      db,
      secretBox: box,
      client,
      logger: quiet,
      // Long enough for five commits on a loaded machine; no poll in between.
      notifyGatherMs: 500,
      pollIntervalMs: 60_000,
    });
    try {
      await worker.start();
      await eventually(
        () => claims,
        (n) => n >= 1,
      );
      const before = claims;
      for (let i = 0; i < 5; i++) {
        await insertEvent(store.db, {
          workspaceId,
          identity: 'alice',
          type: 'integration.created',
          data: { integration: `g${i}` },
          createdAt: Date.now(),
        });
      }
      await eventually(
        () => posted.length,
        (n) => n === 5,
      );
      // One claim took all five; the attempts' ends may ask once more and find nothing.
      expect(claims - before).toBeLessThanOrEqual(2);
      expect(posted).toHaveLength(5);
    } finally {
      await worker.stop();
      await store.close();
    }
  });
});
