/**
 * Writes that callers make one at a time, gathered: calls made within one turn of the event loop go to the
 * database as one statement, and while `inFlight` statements run the next batch gathers. Under concurrent
 * load a statement (and, outside a transaction, a commit) then serves several calls instead of one each.
 * With one connection (PGlite) one statement at a time is all there is; with a pool, a batch that waits
 * for the previous one's commit to reach the disk waits a whole flush for nothing, while the server would
 * have flushed both commits together, so several run at once.
 *
 * A batch the database refused is written again one call at a time, so that one bad input fails only its
 * own call. Any other failure (the connection lost: the outcome unknown) fails the whole batch, as it
 * would have failed each call alone; nothing is written twice.
 */
export class TurnBatch<Input, Output> {
  #queue: { input: Input; resolve: (output: Output) => void; reject: (error: unknown) => void }[] = [];
  #running = 0;
  #scheduled = false;

  constructor(
    private readonly writeMany: (inputs: readonly Input[]) => Promise<Output[]>,
    private readonly maxBatch: number,
    private readonly inFlight = 1,
  ) {}

  add(input: Input): Promise<Output> {
    return new Promise<Output>((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#schedule();
    });
  }

  /** One more writer at the end of this turn, if there is room for one. */
  #schedule(): void {
    if (this.#scheduled || this.#running >= this.inFlight) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#queue.length === 0 || this.#running >= this.inFlight) return;
      this.#running++;
      void this.#drain().finally(() => {
        this.#running--;
        if (this.#queue.length > 0) this.#schedule();
      });
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.maxBatch);
      try {
        const outputs = await this.writeMany(batch.map((call) => call.input));
        for (const [i, call] of batch.entries()) call.resolve(outputs[i]!);
      } catch (error) {
        if (batch.length === 1 || !refusedByDatabase(error)) {
          for (const call of batch) call.reject(error);
          continue;
        }
        await Promise.all(
          batch.map((call) =>
            this.writeMany([call.input]).then((outputs) => call.resolve(outputs[0]!), call.reject),
          ),
        );
      }
    }
  }
}

/** An error the database answered with (a SQLSTATE): the statement was refused, so nothing was written. */
function refusedByDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}
