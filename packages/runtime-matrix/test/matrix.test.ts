// The receiver SDK's README code on every runtime and framework the README names, each installed from the
// npm registry, against deliveries signed with node:crypto. Prints one table per run.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MATRIX, startMatrix } from '../src/cells.mjs';
import { formatTable, rowsOfDown, runCell } from '../src/run-cases.mjs';

type Matrix = Awaited<ReturnType<typeof startMatrix>>;
type Part = { seconds?: number; error?: string };
type Row = {
  cell: { runtime: string; framework: string; version: string };
  results: Record<string, { ok: boolean; failures: string[] }>;
};
let matrix: Matrix | undefined;
let startedIn = 0;
let waited = 0;
let prepared: Record<string, Part> = {};

/**
 * Waits for the preparation started by the global set-up (test/prepare.ts): its outcome per part. Throws
 * only if the README's code could not be written, when no cell can run.
 */
async function preparation(): Promise<Record<string, Part>> {
  const outcome = inject('matrixPrepared');
  while (!existsSync(outcome)) await sleep(200);
  const { parts, error } = JSON.parse(readFileSync(outcome, 'utf8'));
  if (error !== undefined) throw new Error(`The matrix's preparation failed: ${error}`);
  return parts;
}

beforeAll(async () => {
  const since = performance.now();
  prepared = await preparation();
  waited = performance.now() - since;
  matrix = await startMatrix(prepared);
  startedIn = performance.now() - since - waited;
}, 900_000);

afterAll(async () => {
  await matrix?.stop();
});

describe('runtime matrix', () => {
  it('every cell answers every case as the spec and the README say', async () => {
    if (matrix === undefined) throw new Error('the matrix did not start');
    const since = performance.now();
    const ran = await Promise.all(matrix.cells.map(async (cell) => ({ cell, results: await runCell(cell) })));
    const down = matrix.down.flatMap(({ runtime, error }) =>
      rowsOfDown(runtime, MATRIX[runtime as keyof typeof MATRIX], error),
    );
    const order = Object.keys(MATRIX);
    const rows: Row[] = [...ran, ...down].sort(
      (a, b) => order.indexOf(a.cell.runtime) - order.indexOf(b.cell.runtime),
    );
    const starts = matrix.runtimes.map(
      (runtime) => `${runtime.runtime} ${(runtime.startMs / 1000).toFixed(1)} s`,
    );
    const ahead = Object.entries(prepared).map(
      ([part, outcome]) => `${part} ${outcome.seconds?.toFixed(1) ?? 'failed'} s`,
    );
    console.log(
      `${formatTable(rows)}\n\nprepared beside the other tests (${ahead.join(', ')}), ` +
        `waited for here ${(waited / 1000).toFixed(1)} s; started in ${(startedIn / 1000).toFixed(1)} s ` +
        `(${starts.join(', ')}); cases in ${((performance.now() - since) / 1000).toFixed(1)} s` +
        matrix.down.map(({ runtime, error }) => `\n\n${runtime} did not start:\n${error.message}`).join(''),
    );
    const failures = rows.flatMap(({ cell, results }) =>
      Object.entries(results).flatMap(([name, result]) =>
        result.failures.map((failure) => `${cell.runtime} / ${cell.framework} / ${name}: ${failure}`),
      ),
    );
    expect(failures).toEqual([]);
  }, 120_000);
});
