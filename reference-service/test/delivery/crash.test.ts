import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { HEADER_NAMES } from '@svc-kit/webhooks';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../src/context.js';
import { startDelivery } from '../../src/delivery/start.js';
import { DEFAULT_CAPS } from '../../src/delivery/worker.js';
import { newId } from '../../src/domain/ids.js';
import { PublicAddress } from '../../src/public-address.js';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { insertEvent } from '../../src/store/queries/events.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS, createEmptyPostgres } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { call, createTenant, type Tenant, testResolve } from '../support/harness.js';
import { initialisedDataDir } from '../support/pglite-snapshot.js';
import { buildEntryPoint, type ServiceProcess, spawnService } from '../support/service-process.js';
import { until } from '../support/until.js';

/**
 * How long the receiver holds each request: long enough that a kill always catches some on the wire, and
 * that a backlog builds up behind the attempts in flight.
 */
const ANSWER_AFTER_MS = 1_000;
/** The lease the PostgreSQL run uses, so that the sweeper (not start-up) abandons the killed claims. */
const LEASE_MS = 5_000;

interface Arrival {
  deliveryId: string;
  eventId: string;
  endpoint: string;
  /** Which service process sent it. */
  run: 'first' | 'restarted';
  answered: boolean;
  /** The connection closed before the answer went out (the sender died). */
  cutOff: boolean;
}

/** A loopback receiver for two endpoints (`/a`, `/b`) that records every request and answers slowly. */
async function startSlowReceiver() {
  const arrivals: Arrival[] = [];
  let run: Arrival['run'] = 'first';
  const server = createServer((req, res) => {
    const arrival: Arrival = {
      deliveryId: String(req.headers[HEADER_NAMES.delivery]),
      eventId: String(req.headers[HEADER_NAMES.eventId]),
      endpoint: req.url ?? '',
      run,
      answered: false,
      cutOff: false,
    };
    arrivals.push(arrival);
    req.resume();
    const timer = setTimeout(() => {
      arrival.answered = true;
      res.end('ok');
    }, ANSWER_AFTER_MS);
    res.on('close', () => {
      if (!arrival.answered) {
        clearTimeout(timer);
        arrival.cutOff = true;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    arrivals,
    open: () => arrivals.filter((a) => !a.answered && !a.cutOff).length,
    setRun(next: Arrival['run']) {
      run = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: string;
}

describe.each(['pglite', 'postgres'] as const)('a service process killed mid-burst on %s', (backend) => {
  let entry: Awaited<ReturnType<typeof buildEntryPoint>>;
  let receiver: Awaited<ReturnType<typeof startSlowReceiver>>;
  let database: { url: string; drop(): Promise<void> } | undefined;
  let store: OpenedStore | undefined;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    entry = await buildEntryPoint();
    receiver = await startSlowReceiver();
  }, 60_000);
  afterAll(async () => {
    for (const running of processes) if (running.child.exitCode === null) running.child.kill('SIGKILL');
    await store?.close();
    await database?.drop();
    await receiver?.close();
    await entry?.remove();
  }, 60_000);

  it('never attempts a delivery twice, abandons what was in flight, and delivers the rest after a restart', async () => {
    const secretKey = randomBytes(32).toString('hex');
    const dataDir = await initialisedDataDir('svc-crash-');
    if (backend === 'postgres') database = await createEmptyPostgres();
    const env: Record<string, string> = {
      SVC_DATA_DIR: dataDir,
      SVC_SECRET_KEY: secretKey,
      SVC_ALLOW_LOCALHOST_WEBHOOKS: '1',
      SVC_DELIVERY_LEASE_MS: String(LEASE_MS),
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    const openOurStore = () => openStore({ databaseUrl: database?.url, dataDir });

    // The workspace, its identity and two endpoints, written before the service starts (PGlite's data
    // dir is the process's alone while it runs).
    store = await openOurStore();
    const secretBox = createSecretBox(Buffer.from(secretKey, 'hex'));
    const ctx: ServiceContext = {
      db: store.db,
      secretBox,
      resolveHost: testResolve,
      allowLocalhostWebhooks: true,
      publicAddress: new PublicAddress(),
      now: () => Date.now(),
    };
    const tenant = await createTenant(ctx, { webhooksEnabled: true });
    await insertIdentity(store.db, {
      id: newId('idn'),
      workspace_id: tenant.workspaceId,
      slug: 'crash',
      created_at: 0,
    });
    const endpointPath = new Map<string, string>();
    for (const path of ['/a', '/b']) {
      const { id } = await seedActiveEndpoint(
        store.db,
        secretBox,
        tenant.workspaceId,
        `${receiver.base}${path}`,
      );
      endpointPath.set(id, path);
    }
    if (backend === 'pglite') {
      await store.close();
      store = undefined;
    }

    const first = spawnService(entry.main, env);
    processes.push(first);
    const firstUrl = await first.ready();

    // A burst from four callers at once, until the kill.
    const emitted: string[] = [];
    let emitting = true;
    const emitters = Array.from({ length: 4 }, async () => {
      while (emitting) {
        const id = await emit(firstUrl, tenant).catch(() => undefined);
        if (id !== undefined) emitted.push(id);
      }
    });
    // Kill once plenty of attempts are on the wire and a backlog is left pending.
    const killBy = Date.now() + 30_000;
    while (!(emitted.length * 2 - receiver.arrivals.length >= 100 && receiver.open() >= 16)) {
      if (Date.now() > killBy)
        throw new Error(
          `no burst built up (${emitted.length} emitted, ${receiver.arrivals.length} arrived, ${receiver.open()} open); output:\n${first.output()}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    console.log(
      `kill at ${emitted.length} emitted, ${receiver.arrivals.length} arrived, ${receiver.open()} open`,
    );
    first.child.kill('SIGKILL');
    emitting = false;
    expect(await first.exited).toBeNull();
    await Promise.all(emitters);
    const killedAt = Date.now();
    // Let the receiver notice the closed connections.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cutOff = receiver.arrivals.filter((a) => a.cutOff).map((a) => a.deliveryId);
    expect(cutOff.length).toBeGreaterThan(0);

    receiver.setRun('restarted');
    const restarted = spawnService(entry.main, env);
    processes.push(restarted);
    const restartedUrl = await restarted.ready();
    const restartedAfterMs = Date.now() - killedAt;
    const later: string[] = [];
    for (let i = 0; i < 20; i++) later.push((await emit(restartedUrl, tenant))!);

    // Wait until every delivery has settled: on PostgreSQL read the shared database; on PGlite (locked by
    // the process) wait for the later events and then for the receiver to go quiet.
    if (store) {
      const db = store.db;
      await until(async () => {
        const [row] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status IN ('pending', 'sending')`,
        );
        return row!.n === 0;
      }, 60_000);
    } else {
      await until(() => {
        const got = new Set(receiver.arrivals.filter((a) => a.answered).map((a) => a.eventId));
        return later.every((id) => got.has(id));
      }, 60_000);
    }
    await quiet(() => receiver.arrivals.length, 1_500);
    restarted.child.kill('SIGTERM');
    expect(await restarted.exited).toBe(0);

    store ??= await openOurStore();
    const rows = await store.db.query<DeliveryRow>(
      'SELECT id, event_id, endpoint_id, status FROM webhook_deliveries',
    );
    const events = await store.db.query<{ id: string }>('SELECT id FROM events WHERE workspace_id = $1', [
      tenant.workspaceId,
    ]);

    // Every event committed has its two rows (the response of a trigger cut by the kill may be lost, but
    // its event and rows commit together or not at all), and every row is settled.
    expect(events.length).toBeGreaterThanOrEqual(emitted.length + later.length);
    expect(rows).toHaveLength(events.length * 2);
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
    const atStart = restarted.output().includes('deliveries interrupted by a crash were abandoned');
    const bySweeper = restarted
      .output()
      .includes('deliveries left sending by a stopped worker were abandoned');
    if (backend === 'pglite') expect(atStart).toBe(true);
    else if (restartedAfterMs < LEASE_MS - 1_000)
      expect({ atStart, bySweeper }).toEqual({ atStart: false, bySweeper: true });
    else expect(atStart || bySweeper).toBe(true);
  }, 180_000);
});

describe.each(BACKENDS)('the lease sweeper on $name', (backend) => {
  let store: OpenedStore;
  beforeAll(async () => {
    store = await backend.open();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('abandons a row claimed by a worker that stopped answering, once its lease runs out, without sending it', async () => {
    const secretBox = createSecretBox(randomBytes(32));
    const ctx: ServiceContext = {
      db: store.db,
      secretBox,
      resolveHost: testResolve,
      allowLocalhostWebhooks: true,
      publicAddress: new PublicAddress(),
      now: () => Date.now(),
    };
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

async function emit(baseUrl: string, tenant: Tenant): Promise<string | undefined> {
  const result = await call({ baseUrl }, 'POST', '/sandbox/events', {
    auth: { key: tenant.key },
    body: { type: 'integration.created', identity: 'crash' },
  });
  if (result.status !== 201) throw new Error(`trigger answered ${result.status}: ${result.text}`);
  return (result.body as { event: { id: string } }).event.id;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** Waits until `count` has not changed for `ms`. */
async function quiet(count: () => number, ms: number): Promise<void> {
  let last = count();
  let since = Date.now();
  while (Date.now() - since < ms) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = count();
    if (now !== last) {
      last = now;
      since = Date.now();
    }
  }
}
