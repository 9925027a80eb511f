/**
 * `isolation`: what one tenant or stranger can do to the others (issue 40), each figure with its target.
 * This branch's form holds the oversized-upstream and retention figures.
 */
import { type BenchBackend, onBackend } from '../support/backends.js';
import { printTable, type Row } from '../support/table.js';
import { runOversizedUpstreamBench } from './oversized-upstream.js';
import { runRetentionBench } from './retention.js';

export const ISOLATION_HEADER: Row = ['measure', 'value', 'target', 'result'];

export async function runIsolationBench(backends: readonly BenchBackend[], machine: string): Promise<void> {
  const rows: Row[] = [...(await runOversizedUpstreamBench())];
  for (const backend of backends) {
    rows.push(...((await onBackend(backend, (env) => runRetentionBench(env, backend))) ?? []));
  }
  printTable(`Isolation, ${machine}`, ISOLATION_HEADER, rows);
}
