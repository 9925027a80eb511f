/**
 * One read of the database shared by everyone who asks while it runs, each waiting at most `timeoutMs`:
 * callers of unauthenticated `/readyz` or scrapes of `/metrics` add no statements to a slow database's queue.
 */
export class SharedRead<T> {
  #inFlight: Promise<T> | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly timeoutMs: number,
  ) {}

  /** The read's result, or a rejection when it failed or did not settle within the timeout. */
  get(): Promise<T> {
    if (this.#inFlight === undefined) {
      const started: Promise<T> = this.read().finally(() => {
        if (this.#inFlight === started) this.#inFlight = undefined;
      });
      this.#inFlight = started;
    }
    const inFlight = this.#inFlight;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        // A read that never settles (a connection lost without a word) must not hold every later caller:
        // the next one starts a read of its own, so at most one more statement per timeout.
        if (this.#inFlight === inFlight) this.#inFlight = undefined;
        reject(new Error(`the database did not answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
    });
    return Promise.race([inFlight, late]).finally(() => clearTimeout(timer));
  }
}
