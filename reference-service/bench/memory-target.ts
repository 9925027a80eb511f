/**
 * The memory benchmark's process (bench/memory.ts spawns it): the real service on PGlite in SVC_DATA_DIR,
 * started as `npm start` starts it. It prints `{ ready: … }` with its memory once started; with
 * SVC_BENCH_SEED=1 it then writes a 10,000-event burst and prints `{ seeded: … }` with its memory again.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { readConfig } from '../src/config.js';
import { SANDBOX_WORKSPACE_ID } from '../src/features/sandbox/seed.js';
import { createServiceLogger } from '../src/http/logger.js';
import { startService } from '../src/server.js';
import { insertEvents } from '../src/store/queries/events.js';

export interface MemorySnapshot {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  threadHeapUsed: number;
  wasm: number;
  /** Committed, not only used: what the heaps hold resident. */
  heapTotal: number;
  threadHeapTotal: number;
  /** The main heap's young generation, committed: a burst grows it and V8 keeps it (see RESULTS.md). */
  youngTotal: number;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 2_000));

async function main(): Promise<void> {
  const config = readConfig({ ...process.env, PORT: '0', NODE_ENV: 'development' });
  const service = await startService(config, createServiceLogger(config.logLevel));
  const snapshot = async (): Promise<MemorySnapshot> => {
    await settle();
    const main = process.memoryUsage();
    const thread = (await service.ctx.db.memory?.()) ?? {};
    return {
      rss: main.rss,
      heapUsed: main.heapUsed,
      external: main.external,
      arrayBuffers: main.arrayBuffers,
      threadHeapUsed: thread.heapUsed ?? 0,
      wasm: thread.wasm ?? 0,
      heapTotal: main.heapTotal,
      threadHeapTotal: thread.heapTotal ?? 0,
      youngTotal: getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0,
    };
  };
  const print = (key: string, value: unknown) =>
    process.stdout.write(`${JSON.stringify({ [key]: value })}\n`);
  print('ready', { seeded: service.seed?.seeded ?? false, memory: await snapshot() });
  if (process.env.SVC_BENCH_SEED === '1') {
    await service.ctx.db.transaction((tx) =>
      insertEvents(
        tx,
        Array.from({ length: 10_000 }, (_, i) => ({
          workspaceId: SANDBOX_WORKSPACE_ID,
          identity: 'sandbox-alice',
          type: 'integration.created' as const,
          data: { integration: `m${i}` },
          createdAt: Date.now(),
        })),
      ),
    );
    print('seeded', await snapshot());
  }
  process.on('SIGTERM', () => {
    service.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((error: unknown) => {
  console.error('memory target failed:', error);
  process.exit(1);
});
