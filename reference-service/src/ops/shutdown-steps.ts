/** A shutdown that outlived its grace period; the message names the step it was stuck in. */
export class ShutdownTimeoutError extends Error {
  override readonly name = 'ShutdownTimeoutError';
}

export type ShutdownStep = readonly [what: string, run: () => Promise<unknown> | undefined];

/**
 * Runs the steps one after another, and gives up after `graceMs` in all. Draining ends idle and silent
 * connections, but not an answer still in progress: a handler waiting on a statement the database never
 * answers (a lock held elsewhere, a network partition) would otherwise hold the process for ever, and an
 * orchestrator would kill it without a word on why. The steps left running are abandoned to the exit. The
 * timer holds the process until then, so a step stuck on nothing at all still ends in the error.
 */
export async function runShutdownSteps(graceMs: number, steps: readonly ShutdownStep[]): Promise<void> {
  let current = '';
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new ShutdownTimeoutError(`shutdown did not finish within ${graceMs} ms: still ${current}`)),
      graceMs,
    );
  });
  const inOrder = (async () => {
    for (const [what, run] of steps) {
      current = what;
      await run();
    }
  })();
  try {
    await Promise.race([inOrder, late]);
  } finally {
    clearTimeout(timer);
  }
}
