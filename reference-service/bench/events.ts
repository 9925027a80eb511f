/**
 * Event intake: (1) a burst of 10,000 events committed in one transaction (`insertEvents`, one statement),
 * in this process on a fresh store, one active endpoint so that each event has its outbox row, no worker
 * running; median of three after a warm-up; (2) the sandbox trigger route over HTTP, autocannon with 10
 * connections against the real service (its own process, its worker delivering to a receiver here).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { WORKSPACE_PACE_PREFIX } from '../src/domain/delivery-limits.js';
import { openStore } from '../src/store/open.js';
import { insertEvents } from '../src/store/queries/events.js';
import { createSecretBox } from '../src/store/secret-box.js';
import { seedActiveEndpoint } from '../test/support/endpoints.js';
import { seedWorkspace } from '../test/support/workspaces.js';
import type { ApiTargetReady } from './api/run.js';
import type { BenchEnv } from './support/backends.js';
import { type Row, verdict } from './support/table.js';
import { spawnTarget } from './support/target-process.js';

const BURST = 10_000;
const BURST_TARGET = 10_000;
const TRIGGER_TARGET = 1_000;

async function burstRate(env: Record<string, string | undefined>): Promise<number[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-events-'));
  const store = await openStore(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL, dataDir } : { dataDir });
  try {
    const workspaceId = await seedWorkspace(store.db);
    await seedActiveEndpoint(
      store.db,
      createSecretBox(randomBytes(32)),
      workspaceId,
      'https://hooks.example.com/x',
    );
    const burst = (round: number) =>
      Array.from({ length: BURST }, (_, i) => ({
        workspaceId,
        identity: 'bench',
        type: 'integration.created' as const,
        data: { integration: `burst-${round}-${i}` },
        createdAt: Date.now(),
      }));
    const rates: number[] = [];
    for (let round = 0; round <= 3; round++) {
      const events = burst(round);
      // Each round starts with the workspace's delivery pace unspent: the previous round's 10,000 rows
      // put it past its backlog bound, which would refuse this round (store/queries/backlog.ts).
      await store.db.query('DELETE FROM outbound_budgets WHERE bucket = $1', [
        `${WORKSPACE_PACE_PREFIX}${workspaceId}`,
      ]);
      const started = performance.now();
      await store.db.transaction((tx) => insertEvents(tx, events));
      const seconds = (performance.now() - started) / 1000;
      if (round > 0) rates.push(BURST / seconds);
    }
    return rates.sort((a, b) => a - b);
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function triggerRate(
  env: Record<string, string | undefined>,
  seconds: number,
): Promise<{
  rate: number;
  p99: number;
  failures: number;
  delivered: number;
  floor: number;
  floorP99: number;
  syncsPerEvent: number | undefined;
  syncsPerSecond: number | undefined;
}> {
  let delivered = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      delivered++;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const target = await spawnTarget<ApiTargetReady>('./api-target.js', {
    ...env,
    SVC_ALLOW_LOCALHOST_WEBHOOKS: '1',
  });
  try {
    const t = target.ready;
    await fetch(`${t.anchors}/prepare-events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url }),
    });
    const options = {
      url: `${t.service}/sandbox/events`,
      connections: 10,
      method: 'POST' as const,
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'integration.created' }),
    };
    // The floor first, while the worker has nothing to do: the same 10 connections, each request one
    // committed INSERT and nothing else. A route that commits every event before it answers cannot pass it.
    const floorOptions = { url: `${t.anchors}/commit`, connections: 10, method: 'POST' as const };
    await autocannon({ ...floorOptions, duration: 1 });
    const floor = await autocannon({ ...floorOptions, duration: seconds });
    const walSyncs = async () =>
      ((await (await fetch(`${t.anchors}/wal-syncs`)).json()) as { syncs: number | null }).syncs;
    await autocannon({ ...options, duration: 1 });
    const syncsBefore = await walSyncs();
    const result = await autocannon({ ...options, duration: seconds });
    const syncsAfter = await walSyncs();
    return {
      rate: result.requests.average,
      p99: result.latency.p99,
      failures: result.non2xx + result.errors + result.timeouts,
      delivered,
      floor: floor.requests.average,
      floorP99: floor.latency.p99,
      syncsPerEvent:
        syncsBefore === null || syncsAfter === null
          ? undefined
          : (syncsAfter - syncsBefore) / Math.max(1, result.requests.total),
      syncsPerSecond:
        syncsBefore === null || syncsAfter === null ? undefined : (syncsAfter - syncsBefore) / seconds,
    };
  } finally {
    await target.stop();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

/** Each part on a database of its own (`fresh`): the burst's rows would keep the service's worker busy. */
export async function runEventsBench(
  fresh: <T>(fn: (env: BenchEnv) => Promise<T>) => Promise<T | undefined>,
  seconds: number,
): Promise<Row[] | undefined> {
  const rates = await fresh(burstRate);
  const trigger = await fresh((env) => triggerRate(env, seconds));
  if (!rates || !trigger) return undefined;
  const median = rates[1]!;
  return [
    [
      `burst of ${BURST} events, one transaction (median of 3)`,
      `${Math.round(median)} events/s`,
      `${rates.map((r) => Math.round(r)).join(', ')}`,
      `≥ ${BURST_TARGET}/s`,
      verdict(median >= BURST_TARGET),
    ],
    [
      '  floor: one committed INSERT per request, 10 connections',
      `${Math.round(trigger.floor)} req/s`,
      `p99 ${trigger.floorP99} ms`,
      '',
      '',
    ],
    [
      `POST /sandbox/events, 10 connections, ${seconds} s${trigger.failures ? ` (${trigger.failures} failed)` : ''}`,
      `${Math.round(trigger.rate)} events/s`,
      `p99 ${trigger.p99} ms; ${trigger.delivered} delivered meanwhile; ${(trigger.rate / trigger.floor).toFixed(2)}× the floor${
        trigger.syncsPerEvent === undefined
          ? ''
          : `; ${trigger.syncsPerEvent.toFixed(2)} WAL flushes per event (${Math.round(trigger.syncsPerSecond ?? 0)}/s)`
      }`,
      `≥ ${TRIGGER_TARGET}/s`,
      triggerVerdict(trigger),
    ],
  ];
}

/**
 * The route waits for its event's commit (and its worker commits each claim and each logged outcome), so
 * when the floor itself, one commit per request and nothing else, stays under the target, the disk's flush
 * rate is what the figure shows, and the verdict says so.
 */
function triggerVerdict(trigger: { rate: number; failures: number; floor: number }): string {
  if (trigger.rate >= TRIGGER_TARGET && trigger.failures === 0) return verdict(true);
  if (trigger.floor < TRIGGER_TARGET) {
    return `MISS: the floor itself is ${Math.round(trigger.floor)}/s: machine-bound`;
  }
  return verdict(false);
}

export const EVENTS_HEADER: Row = ['measure', 'rate', 'detail', 'target', 'result'];
