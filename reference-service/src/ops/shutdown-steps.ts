/** A shutdown that outlived its grace period; the message names the step it was stuck in. */
export class ShutdownTimeoutError extends Error {
  override readonly name = 'ShutdownTimeoutError';
}

export type ShutdownStep = readonly [what: string, run: () => Promise<unknown> | undefined];

/**
 * Runs the steps in order and gives up after `graceMs` in all: a handler waiting on a statement the database
 * never answers would otherwise hold the process for ever, until an orchestrator killed it without a word on
 * why. Steps left running are abandoned to the exit; the timer holds the process until then.
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
