/**
 * Resident memory of the PGlite-backed service, as `npm start` runs it: on the first start (which creates
 * the data dir and seeds the sandbox), after a 10,000-event burst, and on a restart on the same data dir.
 * Each figure is split into where it lives: the main thread's JavaScript heap, buffers outside it, the
 * database thread's heap and PostgreSQL's WebAssembly memory (the rest of RSS is code, stacks and
 * allocator slack).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemorySnapshot } from './memory-target.js';
import { type Row, verdict } from './support/table.js';
import { spawnTarget } from './support/target-process.js';

const TARGET_MB = 300;
const mb = (bytes: number) => `${Math.round(bytes / 1048576)} MB`;

function row(name: string, memory: MemorySnapshot): Row {
  return [
    name,
    mb(memory.rss),
    `main heap ${mb(memory.heapUsed)} of ${mb(memory.heapTotal)} (young generation ${mb(memory.youngTotal)}), buffers ${mb(memory.external)}, db thread heap ${mb(memory.threadHeapUsed)} of ${mb(memory.threadHeapTotal)}, WebAssembly ${mb(memory.wasm)}`,
    `≤ ${TARGET_MB} MB`,
    verdict(memory.rss <= TARGET_MB * 1048576),
  ];
}

export async function runMemoryBench(): Promise<Row[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-memory-'));
  const env = { DATABASE_URL: '', SVC_DATA_DIR: dataDir };
  try {
    const rows: Row[] = [];
    const first = await spawnTarget<{ memory: MemorySnapshot }>('./memory-target.js', {
      ...env,
      SVC_BENCH_SEED: '1',
    });
    rows.push(row('first start: data dir created, sandbox seeded', first.ready.memory));
    rows.push(row('after a 10,000-event burst', await first.next<MemorySnapshot>('seeded')));
    await first.stop();
    const again = await spawnTarget<{ memory: MemorySnapshot }>('./memory-target.js', env);
    rows.push(row('restart on the same data dir', again.ready.memory));
    await again.stop();
    return rows;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

export const MEMORY_HEADER: Row = ['moment', 'RSS', 'where it is', 'target', 'result'];
