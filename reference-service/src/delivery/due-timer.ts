/**
 * One wake-up at the earliest time asked for: the claim tells when the first row it left for its pace
 * becomes due (store/queries/deliveries-claim.ts), so that paced rows go out on time rather than at the
 * next poll, and a later time asked meanwhile waits for the claim that this wake-up makes.
 */
export class DueTimer {
  #timer: NodeJS.Timeout | undefined;
  #at = Number.POSITIVE_INFINITY;

  constructor(
    private readonly wake: () => void,
    private readonly now: () => number,
  ) {}

  /** Wakes at `at` (the `now` clock's time), unless a wake-up is already set for no later. */
  at(at: number): void {
    if (at >= this.#at) return;
    clearTimeout(this.#timer);
    this.#at = at;
    this.#timer = setTimeout(
      () => {
        this.stop();
        this.wake();
      },
      Math.max(0, at - this.now()),
    );
    // The poll's timers do not hold the process open either.
    this.#timer.unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Number.POSITIVE_INFINITY;
  }
}
