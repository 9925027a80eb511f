import { RateLimitedError } from './errors.js';

/**
 * How many password hashes run at once in this process, and how many may wait. scrypt runs in libuv's thread
 * pool (4 threads by default), which also reads the portal's files and resolves names: unbounded, a burst of
 * wrong log-ins stalled the portal and every log-in for tens of seconds. With 2 running the pool keeps
 * threads for the rest; past the queue a log-in is refused at once (429, retry after a second).
 */
export class ScryptGate {
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(
    readonly concurrency = 2,
    readonly queue = 32,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#running >= this.concurrency) {
      if (this.#waiting.length >= this.queue)
        throw new RateLimitedError(
          1,
          'too many password checks in progress on this service; retry after 1 second',
        );
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#running++;
    }
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#running--;
    }
  }

  stats(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }
}

/** The gate every password hash and check of this process goes through (domain/password.ts). */
export const scryptGate = new ScryptGate();
