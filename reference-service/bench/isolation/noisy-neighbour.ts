/**
 * `noisy-neighbour` (issue 40, item 3): a quiet tenant's delivery latency while another floods a tarpit
 * receiver (answers `200` at once, then one byte a second until the worker's 10 s timeout). The real worker
 * with its default caps, one process; events committed one at a time for the quiet tenant (emit → arrival),
 * first at idle, then once the flood holds its share of the sockets. Then every flooded delivery must go
 * out once.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import type { ServiceContext } from '../../src/context.js';
import { startDelivery } from '../../src/delivery/start.js';
import { DEFAULT_CAPS, DEFAULT_CONCURRENCY } from '../../src/delivery/worker.js';
import { SANDBOX_WORKSPACE_ID } from '../../src/domain/sandbox-workspace.js';
import { PublicAddress } from '../../src/public-address.js';
import { openStore } from '../../src/store/open.js';
import { insertEvent, insertEvents } from '../../src/store/queries/events.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { seedActiveEndpoint } from '../../test/support/endpoints.js';
import { testResolve } from '../../test/support/harness.js';
import { startTarpit } from '../../test/support/tarpit.js';
import { until } from '../../test/support/until.js';
import { seedWorkspace } from '../../test/support/workspaces.js';
import type { BenchEnv } from '../support/backends.js';
import { type Row, verdict } from '../support/table.js';

const SAMPLES = Number(process.env.BENCH_NOISY_SAMPLES ?? 100);
const GAP_MS = 20;
/** Events of the flooder, each to its two tarpit endpoints. */
const FLOOD = Number(process.env.BENCH_NOISY_FLOOD ?? 150);

function p99(latencies: number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]!;
}

export async function runNoisyNeighbourBench(env: BenchEnv, label: string): Promise<Row[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-noisy-'));
  const store = await openStore({ databaseUrl: env.DATABASE_URL || undefined, dataDir });
  const tarpit = await startTarpit();
  const quick = await startTarpit({ holdMs: 0 });
  const ctx: ServiceContext = {
    db: store.db,
    secretBox: createSecretBox(randomBytes(32)),
    resolveHost: testResolve,
    allowLocalhostWebhooks: true,
    publicAddress: new PublicAddress(),
    now: () => Date.now(),
  };
  const delivery = await startDelivery(ctx, pino({ level: 'silent' }));
  try {
    const quiet = await seedWorkspace(store.db);
    await seedActiveEndpoint(store.db, ctx.secretBox, quiet, quick.url('/quiet'));
    // The flood comes from the sandbox's workspace, which the delivery pace does not slow: the caps alone
    // keep the quiet tenant's deliveries quick (the quiet tenant's samples stay within its own pace).
    const flooder = await seedWorkspace(store.db, { id: SANDBOX_WORKSPACE_ID });
    for (const path of ['/a', '/b'])
      await seedActiveEndpoint(store.db, ctx.secretBox, flooder, tarpit.url(path));
    const event = (workspaceId: string, label: string) => ({
      workspaceId,
      identity: 'bench',
      type: 'integration.created' as const,
      data: { integration: label },
      createdAt: Date.now(),
    });
    const quietLatencies = async (phase: string) => {
      const latencies: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const started = performance.now();
        const emitted = await store.db.transaction((tx) => insertEvent(tx, event(quiet, `${phase}-${i}`)));
        latencies.push((await quick.arrivalOf(emitted.id)) - started);
        await new Promise((resolve) => setTimeout(resolve, GAP_MS));
      }
      return latencies;
    };

    const idle = p99(await quietLatencies('idle'));
    await store.db.transaction((tx) =>
      insertEvents(
        tx,
        Array.from({ length: FLOOD }, (_, i) => event(flooder, `flood-${i}`)),
      ),
    );
    await until(() => tarpit.open() >= DEFAULT_CAPS.workspace, 30_000);
    const during = p99(await quietLatencies('flood'));
    const heldDuring = tarpit.open();

    // Every flooded delivery goes out once (a round of the workspace's cap per 10 s timeout).
    const rows = FLOOD * 2;
    const drainedBy = ((rows / DEFAULT_CAPS.workspace + 2) * 10 + 30) * 1_000;
    await until(async () => {
      const [left] = await store.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE workspace_id = $1 AND status <> 'delivered'`,
        [flooder],
      );
      return left!.n === 0;
    }, drainedBy);
    const once = new Set(tarpit.arrivals.map((arrival) => arrival.deliveryId)).size;
    const ok = during <= 2 * idle && during < 1_000;
    return [
      [
        `${label}: quiet tenant's p99, idle → during a tarpit flood (${SAMPLES} events each)`,
        `${idle.toFixed(1)} → ${during.toFixed(1)} ms (×${(during / idle).toFixed(2)})`,
        '≤ ×2 and < 1000 ms',
        verdict(ok),
      ],
      [
        `${label}: tarpit sockets the flooder held, during the samples / most at once (of the worker's ${DEFAULT_CONCURRENCY})`,
        `${heldDuring} / ${tarpit.most()}`,
        `≤ ${DEFAULT_CAPS.workspace}`,
        verdict(tarpit.most() <= DEFAULT_CAPS.workspace),
      ],
      [
        `${label}: flooded deliveries sent (${rows} rows), each once`,
        `${once} sent, ${tarpit.arrivals.length - once} twice`,
        `${rows}, 0 twice`,
        verdict(once === rows && tarpit.arrivals.length === rows),
      ],
    ];
  } finally {
    await delivery.stop();
    await store.close();
    await tarpit.close();
    await quick.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
