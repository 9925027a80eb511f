// Global set-up of the runtime-matrix project: starts src/prepare.mjs when the test run begins, so that
// the Next.js build and the Node installs run beside the other test files. matrix.test.ts waits for the
// file this writes when the preparation ends.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { prepare } from '../src/prepare.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the preparation's outcome is written: `{ parts }` (see prepare.mjs), or `{ error }`. */
    matrixPrepared: string;
  }
}

export default function setup(project: TestProject) {
  const outcome = join(tmpdir(), `runtime-matrix-prepared-${process.pid}.json`);
  rmSync(outcome, { force: true });
  // Beside other projects, yield the processors to their tests; run alone, nothing needs them more.
  const preparation = prepare({ background: project.vitest.projects.length > 1 });
  const written = preparation.done.then(
    (parts) => writeFileSync(outcome, JSON.stringify({ parts })),
    (error: unknown) => writeFileSync(outcome, JSON.stringify({ error: String(error) })),
  );
  project.provide('matrixPrepared', outcome);
  return async () => {
    await preparation.stop();
    await written;
    rmSync(outcome, { force: true });
  };
}
