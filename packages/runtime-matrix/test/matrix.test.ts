// The receiver SDK on every runtime and framework its README names, each installed from the npm registry,
// against deliveries signed with node:crypto. Prints one table per run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMatrix } from '../src/cells.mjs';
import { formatTable, runCell } from '../src/run-cases.mjs';

type Matrix = Awaited<ReturnType<typeof startMatrix>>;
let matrix: Matrix | undefined;
let startedIn = 0;

beforeAll(async () => {
  const since = performance.now();
  matrix = await startMatrix();
  startedIn = performance.now() - since;
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
    console.log(
      `${formatTable(rows)}\n\nstarted in ${(startedIn / 1000).toFixed(1)} s (${starts.join(', ')}); ` +
        `cases in ${((performance.now() - since) / 1000).toFixed(1)} s`,
    );
    const failures = rows.flatMap(({ cell, results }) =>
      Object.entries(results).flatMap(([name, result]) =>
        result.failures.map((failure: string) => `${cell.runtime} / ${cell.framework} / ${name}: ${failure}`),
      ),
    );
    expect(failures).toEqual([]);
  }, 120_000);
});
