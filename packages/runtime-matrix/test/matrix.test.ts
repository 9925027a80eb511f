// The receiver SDK's README code on every runtime and framework the README names, each installed from the
// npm registry, against deliveries signed with node:crypto. Prints one table per run.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startMatrix } from '../src/cells.mjs';
import { formatTable, runCell } from '../src/run-cases.mjs';

type Matrix = Awaited<ReturnType<typeof startMatrix>>;
let matrix: Matrix | undefined;
let startedIn = 0;
let waited = 0;
let prepared: Record<string, number> = {};

/** Waits for the preparation started by the global set-up (test/prepare.ts); throws what it failed on. */
async function preparation(): Promise<Record<string, number>> {
  const outcome = inject('matrixPrepared');
  while (!existsSync(outcome)) await sleep(200);
  const { seconds, error } = JSON.parse(readFileSync(outcome, 'utf8'));
  if (error !== undefined) throw new Error(`The matrix's preparation failed: ${error}`);
  return seconds;
}

beforeAll(async () => {
  const since = performance.now();
  prepared = await preparation();
  waited = performance.now() - since;
  matrix = await startMatrix();
  startedIn = performance.now() - since - waited;
}, 900_000);

afterAll(async () => {
  await matrix?.stop();
});

describe('runtime matrix', () => {
  it('every cell answers every case as the spec and the README say', async () => {
    if (matrix === undefined) throw new Error('the matrix did not start');
    const since = performance.now();
    const rows = await Promise.all(
      matrix.cells.map(async (cell) => ({ cell, results: await runCell(cell) })),
    );
    const starts = matrix.runtimes.map(
      (runtime) => `${runtime.runtime} ${(runtime.startMs / 1000).toFixed(1)} s`,
    );
    const ahead = Object.entries(prepared).map(([part, seconds]) => `${part} ${seconds.toFixed(1)} s`);
    console.log(
      `${formatTable(rows)}\n\nprepared beside the other tests (${ahead.join(', ')}), ` +
        `waited for here ${(waited / 1000).toFixed(1)} s; started in ${(startedIn / 1000).toFixed(1)} s ` +
        `(${starts.join(', ')}); cases in ${((performance.now() - since) / 1000).toFixed(1)} s`,
    );
    const failures = rows.flatMap(({ cell, results }) =>
      Object.entries(results).flatMap(([name, result]) =>
        result.failures.map((failure: string) => `${cell.runtime} / ${cell.framework} / ${name}: ${failure}`),
      ),
    );
    expect(failures).toEqual([]);
  }, 120_000);
});
