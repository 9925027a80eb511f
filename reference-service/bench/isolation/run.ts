/**
 * `isolation`: what one tenant or stranger can do to the others (issue 40), each figure with its target
 * and PASS / MISS.
 */
import { type BenchBackend, onBackend } from '../support/backends.js';
import { printTable, type Row } from '../support/table.js';
import { runAmplificationBench } from './amplification.js';
import { runDeliveryIsolationBench } from './delivery-isolation.js';
import { runOversizedUpstreamBench } from './oversized-upstream.js';
import { runReadFloodBench } from './read-flood.js';
import { runRetentionBench } from './retention.js';
import { measureSlowRequests, SLOW_REQUESTS_HEADER } from './slow-requests.js';

export const ISOLATION_HEADER: Row = ['measure', 'value', 'target', 'result'];

export async function runIsolationBench(
  backends: readonly BenchBackend[],
  seconds: number,
  machine: string,
): Promise<void> {
  const rows: Row[] = [...(await runOversizedUpstreamBench())];
  for (const backend of backends) {
    rows.push(...((await onBackend(backend, (env) => runRetentionBench(env, backend))) ?? []));
    rows.push(...((await onBackend(backend, (env) => runAmplificationBench(env, backend))) ?? []));
    rows.push(...(await runReadFloodBench(backend)));
  }
  rows.push(...(await runDeliveryIsolationBench(backends)));
  printTable(`Isolation, ${machine}`, ISOLATION_HEADER, rows);
  for (const backend of backends) {
    const slow = await onBackend(backend, (env) => measureSlowRequests(env, seconds));
    if (slow) printTable(`Slow requests on ${backend}, ${seconds} s of attack`, SLOW_REQUESTS_HEADER, slow);
  }
}
