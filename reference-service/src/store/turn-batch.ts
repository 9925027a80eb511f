/**
 * Writes that callers make one at a time, gathered: calls made within one turn of the event loop go to the
 * database as one statement (and, outside a transaction, one commit), and while `inFlight` statements run the
 * next batch gathers. With a pool several run at once: a batch waiting for the previous one's commit to reach
 * the disk would wait a whole flush for nothing, where the server flushes both together.
 *
 * A batch the database refused for its data (SQLSTATE classes 22 and 23) is written again one call at a time,
 * in sequence, so that one bad input fails only its own call without a burst of statements. Any other failure
 * (a timeout, the connection lost: the outcome unknown) fails the whole batch, as it would have failed each
 * call alone; nothing is written twice. A batch ends at `maxBatch` calls or once its calls weigh `maxWeight`
 * (`weigh` of each, e.g. its bytes), so that one statement's size stays bounded whatever each call carries.
 */
export class TurnBatch<Input, Output> {
  #queue: {
    input: Input;
    weight: number;
    resolve: (output: Output) => void;
    reject: (error: unknown) => void;
  }[] = [];
  #running = 0;
  #scheduled = false;

  // Typed by the constructor's assignment: the options with their defaults filled in.
  readonly #options;

  constructor(
    private readonly writeMany: (inputs: readonly Input[]) => Promise<Output[]>,
    options: { maxBatch: number; inFlight?: number; maxWeight?: number; weigh?: (input: Input) => number },
  ) {
    this.#options = { inFlight: 1, maxWeight: Number.POSITIVE_INFINITY, ...options };
  }

  add(input: Input): Promise<Output> {
    return new Promise<Output>((resolve, reject) => {
      // Weighed once, as it arrives: a call left for the next batch is not weighed again.
      this.#queue.push({ input, weight: this.#options.weigh?.(input) ?? 0, resolve, reject });
      this.#schedule();
    });
  }

  /** One more writer at the end of this turn, if there is room for one. */
  #schedule(): void {
    if (this.#scheduled || this.#running >= this.#options.inFlight) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#queue.length === 0 || this.#running >= this.#options.inFlight) return;
      this.#running++;
      void this.#drain().finally(() => {
        this.#running--;
        if (this.#queue.length > 0) this.#schedule();
      });
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#batchLength());
      try {
        const outputs = await this.writeMany(batch.map((call) => call.input));
        for (const [i, call] of batch.entries()) call.resolve(outputs[i]!);
      } catch (error) {
        if (batch.length === 1 || !refusedForItsData(error)) {
          for (const call of batch) call.reject(error);
          continue;
        }
        for (const call of batch) {
          await this.writeMany([call.input]).then((outputs) => call.resolve(outputs[0]!), call.reject);
        }
      }
    }
  }

  /** How many queued calls the next batch takes: at least one, at most `maxBatch` and `maxWeight`. */
  #batchLength(): number {
    const limit = Math.min(this.#options.maxBatch, this.#queue.length);
    let weight = 0;
    for (let i = 0; i < limit; i++) {
      weight += this.#queue[i]!.weight;
      if (weight > this.#options.maxWeight) return Math.max(1, i);
    }
    return limit;
  }
}

/** Class 22 (data exception) or 23 (integrity constraint): nothing was written; each call alone may pass. */
function refusedForItsData(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}
