import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDelivery } from '../../src/delivery/start.js';
import { DEFAULT_CAPS } from '../../src/delivery/worker.js';
import { insertEvent } from '../../src/store/queries/events.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import {
  groupBy,
  LEASE_MS,
  runCrashBurst,
  type SlowReceiver,
  startSlowReceiver,
} from '../support/crash-burst.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { createTenant, testContext } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { buildEntryPoint, type ServiceProcess } from '../support/service-process.js';
import { until } from '../support/until.js';

describe.each(['pglite', 'postgres'] as const)('a service process killed mid-burst on %s', (backend) => {
  let entry: Awaited<ReturnType<typeof buildEntryPoint>>;
  let receiver: SlowReceiver;
  let database: { url: string; drop(): Promise<void> } | undefined;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    entry = await buildEntryPoint();
    receiver = await startSlowReceiver();
  }, 60_000);
  afterAll(async () => {
    for (const running of processes) if (running.child.exitCode === null) running.child.kill('SIGKILL');
    await database?.drop();
    await receiver?.close();
    await entry?.remove();
  }, 60_000);

  it('never attempts a delivery twice, abandons what was in flight, and delivers the rest after a restart', async () => {
    const { rows, events, emitted, later, cutOff, endpointPath, restartedAfterMs, restartedOutput } =
      await runCrashBurst({ backend, entry, receiver, processes, onDatabase: (db) => (database = db) });
    expect(cutOff.length).toBeGreaterThan(0);

    // Every event committed has its two rows (the response of a trigger cut by the kill may be lost, but
    // its event and rows commit together or not at all), and every row is settled.
    expect(events).toBeGreaterThanOrEqual(emitted.length + later.length);
    expect(rows).toHaveLength(events * 2);
    const byStatus = groupBy(rows, (row) => row.status);
    expect([...byStatus.keys()].every((s) => s === 'delivered' || s === 'abandoned')).toBe(true);

    // No delivery id and no (event, endpoint) was ever attempted twice, across both processes.
    const perDelivery = groupBy(receiver.arrivals, (a) => a.deliveryId);
    expect([...perDelivery.values()].filter((list) => list.length > 1)).toEqual([]);
    const perPair = groupBy(receiver.arrivals, (a) => `${a.eventId} ${a.endpoint}`);
    expect([...perPair.values()].filter((list) => list.length > 1)).toEqual([]);

    const rowById = new Map(rows.map((row) => [row.id, row]));
    for (const arrival of receiver.arrivals) {
      const row = rowById.get(arrival.deliveryId);
      expect(row, `row of ${arrival.deliveryId}`).toBeDefined();
      expect(arrival.endpoint).toBe(endpointPath.get(row!.endpoint_id));
      expect(arrival.eventId).toBe(row!.event_id);
    }
    // What was on the wire at the kill ended `abandoned`, and was not sent again by the restarted process.
    // Nothing else was: a worker claims only for its free slots, so no more rows than the workspace may
    // have in flight (nothing was claimed ahead to be lost), and every event not abandoned was delivered.
    const abandoned = byStatus.get('abandoned') ?? [];
    expect(abandoned.map((row) => row.id)).toEqual(expect.arrayContaining(cutOff));
    expect(abandoned.length).toBeLessThanOrEqual(DEFAULT_CAPS.workspace);
    for (const row of abandoned) {
      expect(perDelivery.get(row.id)?.every((a) => a.run === 'first') ?? true).toBe(true);
    }
    // Each delivered row was received exactly once, and its answer went out.
    for (const row of byStatus.get('delivered') ?? []) {
      expect(perDelivery.get(row.id)?.map((a) => a.answered)).toEqual([true]);
    }
    // The restarted process delivered the backlog left pending at the kill, not only the later events.
    const laterIds = new Set(later);
    const backlog = receiver.arrivals.filter((a) => a.run === 'restarted' && !laterIds.has(a.eventId));
    expect(backlog.length).toBeGreaterThan(0);

    // The killed claims were abandoned by the path each backend uses: start-up on PGlite (the data-dir
    // lock, left by the dead process, was taken over), the lease sweeper on PostgreSQL.
    const atStart = restartedOutput.includes('deliveries interrupted by a crash were abandoned');
    const bySweeper = restartedOutput.includes('deliveries left sending by a stopped worker were abandoned');
    if (backend === 'pglite') expect(atStart).toBe(true);
    else if (restartedAfterMs < LEASE_MS - 1_000)
      expect({ atStart, bySweeper }).toEqual({ atStart: false, bySweeper: true });
    else expect(atStart || bySweeper).toBe(true);
  }, 180_000);
});

describe.each(BACKENDS)('the lease sweeper on $name', (backend) => {
  const store = useStore(backend);

  it('abandons a row claimed by a worker that stopped answering, once its lease runs out, without sending it', async () => {
    const secretBox = createSecretBox(randomBytes(32));
    const ctx = testContext(store, { secretBox, allowLocalhostWebhooks: true });
    const receiver = await startSlowReceiver();
    const tenant = await createTenant(ctx, { webhooksEnabled: true });
    await seedActiveEndpoint(store.db, secretBox, tenant.workspaceId, `${receiver.base}/a`);
    const quietLog = pino({ level: 'silent' }, new Writable({ write: (_c, _e, done) => done() }));
    // Not the sole owner: start-up leaves fresh claims alone, only the sweeper may abandon them.
    const delivery = await startDelivery(ctx, quietLog, { leaseMs: 1_500, pollIntervalMs: 100 });
    try {
      // A claim made by another worker that then died: committed `sending` in the event's own transaction.
      const claimedAt = Date.now();
      const eventId = await store.db.transaction(async (tx) => {
        const event = await insertEvent(tx, {
          workspaceId: tenant.workspaceId,
          identity: 'sweeper',
          type: 'integration.created',
          data: { integration: 'x' },
          createdAt: Date.now(),
        });
        await tx.query(
          `UPDATE webhook_deliveries SET status = 'sending', claimed_at = $2, claimed_by = 'wkr_dead'
            WHERE event_id = $1`,
          [event.id, claimedAt],
        );
        return event.id;
      });
      const statusOf = async () =>
        (
          await store.db.query<{ status: string }>(
            'SELECT status FROM webhook_deliveries WHERE event_id = $1',
            [eventId],
          )
        )[0]?.status;
      await until(async () => (await statusOf()) === 'abandoned', 10_000);
      // Not before the lease ran out.
      expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(1_500);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.arrivals).toEqual([]);
      expect(await statusOf()).toBe('abandoned');
    } finally {
      await delivery.stop();
      await receiver.close();
    }
  }, 30_000);
});
