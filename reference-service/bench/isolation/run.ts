/**
 * The `isolation` mode: figures of issue 40, each with its target and PASS / MISS. (This branch holds only
 * the slow-request figure; the mode's other figures are added beside it.)
 */
import { type BenchBackend, onBackend } from '../support/backends.js';
import { printTable } from '../support/table.js';
import { measureSlowRequests, SLOW_REQUESTS_HEADER } from './slow-requests.js';

export async function runIsolationBench(backends: readonly BenchBackend[], seconds: number): Promise<void> {
  for (const backend of backends) {
    const rows = await onBackend(backend, (env) => measureSlowRequests(env, seconds));
    if (rows) printTable(`Slow requests on ${backend}, ${seconds} s of attack`, SLOW_REQUESTS_HEADER, rows);
  }
}
