/**
 * `idle`: no claim under way or planned. `scheduled`: a claim starts at the next turn of the event loop.
 * `claiming`: one is under way. `claiming_again`: one is under way and something woke the worker since it
 * began, so another follows at once when it ends.
 */
export type ClaimSchedulerMode = 'idle' | 'scheduled' | 'claiming' | 'claiming_again';

/**
 * Runs the worker's claim loop one at a time, however many wake-ups arrive: attempts finish in groups
 * (their successes are logged together), so a wake-up waits for the end of the current turn and one claim
 * serves the whole group. A wake-up during a claim is not lost: the claim runs again after it.
 */
export class ClaimScheduler {
  #mode: ClaimSchedulerMode = 'idle';
  #settled: (() => void)[] = [];

  constructor(
    private readonly claim: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  get mode(): ClaimSchedulerMode {
    return this.#mode;
  }

  wake(): void {
    if (this.#mode === 'idle') {
      this.#mode = 'scheduled';
      setImmediate(() => void this.#run());
    } else if (this.#mode === 'claiming') {
      this.#mode = 'claiming_again';
    }
  }

  /** Resolves once no claim is under way or planned. */
  settled(): Promise<void> {
    if (this.#mode === 'idle') return Promise.resolve();
    return new Promise((resolve) => this.#settled.push(resolve));
  }

  #wokenDuringClaim(): boolean {
    return this.#mode === 'claiming_again';
  }

  async #run(): Promise<void> {
    try {
      do {
        this.#mode = 'claiming';
        await this.claim();
      } while (this.#wokenDuringClaim());
    } catch (error) {
      // A failing claim is not retried at once: the next wake-up (an attempt's end, a notification or
      // the poll) tries again.
      this.onError(error);
    }
    this.#mode = 'idle';
    for (const resolve of this.#settled.splice(0)) resolve();
  }
}
