import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createDeliveryWorker } from '../../src/delivery/worker.js';
import type { GuardedClient, PostOutcome } from '../../src/outbound/guarded-client.js';
import { insertEvent } from '../../src/store/queries/events.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { seedWorkspace } from '../support/workspaces.js';
import { eventually } from './support.js';

const quiet = pino({ level: 'silent' }, new Writable({ write: (_c, _e, done) => done() }));

describe.each(BACKENDS)('attempt outcomes on $name', (backend) => {
  it('are told for every attempt, dialled or for a listener, so that the metrics count both', async () => {
    const store = await backend.open();
    const box = createSecretBox(randomBytes(32));
    const client: GuardedClient = {
      post: async () => ({ kind: 'answered', status: 200, excerpt: 'ok', latencyMs: 3, headers: {} }),
      close: async () => {},
    };
    const workspaceId = await seedWorkspace(store.db);
    await seedActiveEndpoint(store.db, box, workspaceId, 'https://hooks.example.com/outcomes');
    // A listener endpoint (`svc-webhooks listen`) with no relay in this process: its attempt fails.
    await seedActiveEndpoint(store.db, box, workspaceId, 'listen:outcomes');
    const outcomes: PostOutcome[] = [];
    const worker = createDeliveryWorker({
      db: store.db,
      secretBox: box,
      client,
      logger: quiet,
      onOutcome: (outcome) => outcomes.push(outcome),
    });
    try {
      await worker.start();
      await insertEvent(store.db, {
        workspaceId,
        identity: 'alice',
        type: 'integration.created',
        data: { integration: 'outcomes' },
        createdAt: Date.now(),
      });
      await eventually(
        () => outcomes.length,
        (n) => n === 2,
      );
      expect(outcomes.map((o) => o.kind).sort()).toEqual(['answered', 'failed']);
      expect(outcomes.find((o) => o.kind === 'failed')).toMatchObject({
        reason: 'no listener was connected',
      });
    } finally {
      await worker.stop();
      await store.close();
    }
  });
});
