import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEADER_NAMES } from '@svc-kit/webhooks';
import { newId } from '../../src/domain/ids.js';
import { SANDBOX_WORKSPACE_ID } from '../../src/domain/sandbox-workspace.js';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { createEmptyPostgres } from './backends.js';
import { seedActiveEndpoint } from './endpoints.js';
import { call, createTenant, type Tenant, testContext } from './harness.js';
import { initialisedDataDir } from './pglite-snapshot.js';
import type { buildEntryPoint, ServiceProcess } from './service-process.js';
import { spawnService } from './service-process.js';
import { until } from './until.js';

/**
 * How long the receiver holds each request: long enough that a kill always catches some on the wire, and
 * that a backlog builds up behind the attempts in flight.
 */
export const ANSWER_AFTER_MS = 1_000;
/** The lease the PostgreSQL run uses, so that the sweeper (not start-up) abandons the killed claims. */
export const LEASE_MS = 5_000;

export interface Arrival {
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
export async function startSlowReceiver() {
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

export interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: string;
}

export type SlowReceiver = Awaited<ReturnType<typeof startSlowReceiver>>;

/** What a kill -9 mid-burst left, once a restarted process settled everything. */
export interface CrashBurst {
  rows: DeliveryRow[];
  /** Events the workspace holds (every one committed, its response lost to the kill or not). */
  events: number;
  emitted: string[];
  /** Events emitted to the restarted process. */
  later: string[];
  /** Requests open at the receiver when the process was killed (cut off by the kill). */
  cutOff: string[];
  endpointPath: Map<string, string>;
  restartedAfterMs: number;
  restartedOutput: string;
}

/**
 * Starts a real service process (its own data dir, or PostgreSQL), bursts events at two endpoints of one
 * workspace until plenty are on the wire and a backlog waits, kills it with SIGKILL, starts it again, emits
 * 20 more, and reads every delivery row once all have settled.
 */
export async function runCrashBurst(options: {
  backend: 'pglite' | 'postgres';
  entry: Awaited<ReturnType<typeof buildEntryPoint>>;
  receiver: SlowReceiver;
  /** Every process started, so that the caller can kill what a failure left running. */
  processes: ServiceProcess[];
  /** Called with the throwaway database, for the caller to drop. */
  onDatabase?: (database: { url: string; drop(): Promise<void> }) => void;
}): Promise<CrashBurst> {
  const { backend, entry, receiver, processes } = options;
  let database: { url: string; drop(): Promise<void> } | undefined;
  let store: OpenedStore | undefined;
  try {
    const secretKey = randomBytes(32).toString('hex');
    const dataDir = await initialisedDataDir('svc-crash-');
    if (backend === 'postgres') {
      database = await createEmptyPostgres();
      options.onDatabase?.(database);
    }
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
    const ctx = testContext(store, { secretBox, allowLocalhostWebhooks: true });
    // The sandbox's workspace (the service then seeds none of its own), which the delivery pace does not
    // slow: the burst is to fill the slots and leave a backlog, not to wait out one workspace's pace.
    const tenant = await createTenant(ctx, { webhooksEnabled: true, workspaceId: SANDBOX_WORKSPACE_ID });
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
    first.child.kill('SIGKILL');
    emitting = false;
    if ((await first.exited) !== null) throw new Error('the killed process exited by itself');
    await Promise.all(emitters);
    const killedAt = Date.now();
    // Let the receiver notice the closed connections.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cutOff = receiver.arrivals.filter((a) => a.cutOff).map((a) => a.deliveryId);

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
    const code = await restarted.exited;
    if (code !== 0) throw new Error(`the restarted process exited with ${code}:\n${restarted.output()}`);

    store ??= await openOurStore();
    const rows = await store.db.query<DeliveryRow>(
      'SELECT id, event_id, endpoint_id, status FROM webhook_deliveries',
    );
    const events = await store.db.query<{ id: string }>('SELECT id FROM events WHERE workspace_id = $1', [
      tenant.workspaceId,
    ]);

    return {
      rows,
      events: events.length,
      emitted,
      later,
      cutOff,
      endpointPath,
      restartedAfterMs,
      restartedOutput: restarted.output(),
    };
  } finally {
    await store?.close();
  }
}

export async function emit(baseUrl: string, tenant: Tenant): Promise<string | undefined> {
  const result = await call({ baseUrl }, 'POST', '/sandbox/events', {
    auth: { key: tenant.key },
    body: { type: 'integration.created', identity: 'crash' },
  });
  if (result.status !== 201) throw new Error(`trigger answered ${result.status}: ${result.text}`);
  return (result.body as { event: { id: string } }).event.id;
}

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
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
export async function quiet(count: () => number, ms: number): Promise<void> {
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
