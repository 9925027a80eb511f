import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../src/context.js';
import { type RunningDelivery, startDelivery } from '../../src/delivery/start.js';
import { newId } from '../../src/domain/ids.js';
import { SANDBOX_WORKSPACE_ID } from '../../src/domain/sandbox-workspace.js';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { insertEvent } from '../../src/store/queries/events.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { createEmptyPostgres } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { createTenant, testContext } from '../support/harness.js';
import { type Receiver, startExpressReceiver } from './support.js';

const EVENTS = Number(process.env.SVC_MULTI_INSTANCE_EVENTS ?? 10_000);
const INSTANCES = 3;

describe('several instances on one PostgreSQL database', () => {
  let database: { url: string; drop(): Promise<void> };
  const stores: OpenedStore[] = [];
  const running: RunningDelivery[] = [];
  let receiver: Receiver;

  beforeAll(async () => {
    database = await createEmptyPostgres();
    receiver = await startExpressReceiver();
  });
  afterAll(async () => {
    for (const delivery of running) await delivery.stop();
    for (const store of stores) await store.close();
    await receiver?.close();
    await database?.drop();
  }, 120_000);

  it(`attempts every (event, endpoint) exactly once with ${INSTANCES} instances and ${EVENTS} events`, async () => {
    const secretBox = createSecretBox(randomBytes(32));
    const quiet = pino({ level: 'warn' }, new Writable({ write: (_c, _e, done) => done() }));
    const contexts: ServiceContext[] = [];
    for (let i = 0; i < INSTANCES; i++) {
      const store = await openStore({ databaseUrl: database.url, dataDir: '/nonexistent' });
      stores.push(store);
      contexts.push(testContext(store, { secretBox, allowLocalhostWebhooks: true }));
    }
    const ctx = contexts[0]!;
    // The sandbox's workspace, which the delivery pace does not slow: this test is about the claim across
    // instances, and its burst would otherwise go out at one workspace's pace.
    const tenant = await createTenant(ctx, { webhooksEnabled: true, workspaceId: SANDBOX_WORKSPACE_ID });
    await insertIdentity(ctx.db, {
      id: newId('idn'),
      workspace_id: tenant.workspaceId,
      slug: 'multi',
      created_at: 0,
    });
    const { secret } = await seedActiveEndpoint(ctx.db, secretBox, tenant.workspaceId, receiver.url);
    receiver.setSecret(secret);
    for (const context of contexts)
      running.push(await startDelivery(context, quiet, { pollIntervalMs: 200 }));

    const eventIds: string[] = [];
    const started = Date.now();
    for (let batch = 0; batch < EVENTS; batch += 500) {
      const ids = await ctx.db.transaction(async (tx) => {
        const made: string[] = [];
        for (let i = batch; i < Math.min(EVENTS, batch + 500); i++) {
          made.push(
            (
              await insertEvent(tx, {
                workspaceId: tenant.workspaceId,
                identity: 'multi',
                type: 'integration.created',
                data: { integration: `i${i}` },
                createdAt: Date.now(),
              })
            ).id,
          );
        }
        return made;
      });
      eventIds.push(...ids);
    }
    const deadline = Date.now() + 90_000;
    while (receiver.received.length < EVENTS && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const elapsed = Date.now() - started;
    console.log(`${EVENTS} events through ${INSTANCES} instances in ${elapsed} ms`);
    expect(receiver.refused).toBe(0);
    expect(receiver.received).toHaveLength(EVENTS);
    expect(new Set(receiver.received.map((r) => r.eventId))).toEqual(new Set(eventIds));
    expect(new Set(receiver.received.map((r) => r.deliveryId)).size).toBe(EVENTS);
    // The receiver answers before the worker records the outcome: wait (bounded) for the log to settle.
    const countStatuses = () =>
      ctx.db.query<{ status: string; n: number; workers: number }>(
        `SELECT status, count(*)::int AS n, count(DISTINCT claimed_by)::int AS workers FROM webhook_deliveries GROUP BY status`,
      );
    const settleBy = Date.now() + 30_000;
    let rows = await countStatuses();
    while (
      rows.some((row) => row.status === 'pending' || row.status === 'sending') &&
      Date.now() < settleBy
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rows = await countStatuses();
    }
    expect(rows).toEqual([{ status: 'delivered', n: EVENTS, workers: INSTANCES }]);
  }, 150_000);
});
