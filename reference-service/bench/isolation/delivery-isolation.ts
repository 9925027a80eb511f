/** The delivery figures of the `isolation` mode (issue 40, items 3 and 7), on each backend. */
import { type BenchBackend, onBackend } from '../support/backends.js';
import type { Row } from '../support/table.js';
import { runCrashLossBench } from './crash-loss.js';
import { runNoisyNeighbourBench } from './noisy-neighbour.js';

export async function runDeliveryIsolationBench(backends: readonly BenchBackend[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const backend of backends) {
    rows.push(...((await onBackend(backend, (env) => runNoisyNeighbourBench(env, backend))) ?? []));
  }
  for (const backend of backends) rows.push(...(await runCrashLossBench(backend)));
  return rows;
}
