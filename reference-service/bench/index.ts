/**
 * `npm run bench -w @svc-kit/reference-service -- [mode…] [--seconds S] [--backends pglite,postgres]
 * [--minutes M] [--route NAME] [--interval S] [--out DIR]` (the soak runs on the first backend listed): benchmarks, not tests. They print tables with targets and PASS / MISS and always exit 0
 * (the soak exits 1 when something was lost or memory grew past its bound).
 *
 * Modes: `api` (request path beside its anchors), `events` (event intake), `memory` (resident memory of
 * the PGlite-backed service), `delivery` (the webhook worker beside a raw loop), `isolation` (what one
 * tenant or stranger can do to the others), `soak` (a mixed load
 * over minutes, with a chart). With no mode: every one but `soak`.
 */
import { cpus } from 'node:os';
import { API_HEADER, runApiBench } from './api/run.js';
import { runDeliveryBench } from './delivery.js';
import { EVENTS_HEADER, runEventsBench } from './events.js';
import { runIsolationBench } from './isolation/run.js';
import { MEMORY_HEADER, runMemoryBench } from './memory.js';
import { runSoak } from './soak/run.js';
import { type BenchBackend, type BenchEnv, onBackend } from './support/backends.js';
import { flag, printTable } from './support/table.js';

const MODES = ['api', 'events', 'memory', 'delivery', 'isolation', 'soak'] as const;
type Mode = (typeof MODES)[number];

async function main(): Promise<void> {
  const named = process.argv
    .slice(2)
    .filter((arg, i, all) => !arg.startsWith('--') && !all[i - 1]?.startsWith('--'));
  for (const mode of named) {
    if (!MODES.includes(mode as Mode)) throw new Error(`unknown mode ${mode}; one of ${MODES.join(', ')}`);
  }
  const modes = named.length > 0 ? (named as Mode[]) : MODES.filter((mode) => mode !== 'soak');
  const seconds = Number(flag('seconds', '10'));
  const backends = flag('backends', process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(
    ',',
  ) as BenchBackend[];
  const machine = `Node ${process.versions.node}, ${cpus().length} cores`;

  for (const mode of modes) {
    if (mode === 'api') {
      for (const backend of backends) {
        const rows = await onBackend(backend, (env) => runApiBench(env, seconds));
        if (rows) {
          printTable(
            `API on ${backend}: autocannon, 10 connections, ${seconds} s per route (3 slices, median), ${machine}`,
            API_HEADER,
            rows,
          );
        }
      }
    }
    if (mode === 'events') {
      for (const backend of backends) {
        const rows = await runEventsBench(
          <T>(fn: (env: BenchEnv) => Promise<T>) => onBackend(backend, fn),
          seconds,
        );
        if (rows) printTable(`Event intake on ${backend}, ${machine}`, EVENTS_HEADER, rows);
      }
    }
    if (mode === 'memory') {
      printTable(
        `Resident memory of the service on PGlite, ${machine}`,
        MEMORY_HEADER,
        await runMemoryBench(),
      );
    }
    if (mode === 'delivery') await runDeliveryBench(backends);
    if (mode === 'isolation') await runIsolationBench(backends, seconds, machine);
    if (mode === 'soak') {
      const backend = backends[0] ?? 'pglite';
      const passed = await onBackend(backend, (env) =>
        runSoak(env, {
          minutes: Number(flag('minutes', '10')),
          intervalSeconds: Number(flag('interval', '60')),
          outDir: flag('out', 'node_modules/.cache/svc-bench/soak'),
          backend,
        }),
      );
      if (passed === false) process.exitCode = 1;
    }
  }
}

main().catch((error: unknown) => {
  console.error('benchmark failed:', error);
  process.exitCode = 1;
});
