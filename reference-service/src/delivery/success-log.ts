import type { Logger } from 'pino';
import type { Db } from '../store/db.js';
import { type AttemptResult, recordSuccesses } from '../store/queries/deliveries-claim.js';

type Success = Omit<AttemptResult, 'ok'>;

export interface SuccessLog {
  /** Queues a success for the next batch; the attempt's slot is free at once. */
  record(success: Success): void;
  /** Resolves once everything recorded so far is written (or its write has failed and been logged). */
  flushed(): Promise<void>;
  /** The deliveries recorded and not yet written: answered, still `sending` in the database. */
  unwritten(): string[];
}

/**
 * Group commit for successful attempts. A batch opens with the first success and closes at the end of the
 * current turn of the event loop, so every answer read in the same turn joins it; while it is written, the
 * next batch gathers. The log then costs one statement per batch instead of one per delivery, and an
 * attempt does not hold its slot while the database is busy with a claim.
 *
 * A batch that fails to write leaves its rows `sending`; the sweeper abandons them after the lease, which
 * is what the log shows for an attempt whose outcome was not recorded.
 */
export function createSuccessLog(db: Db, log: Logger): SuccessLog {
  let gathering = newBatch();
  let writing: Batch | undefined;
  let draining = false;

  async function drain(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (gathering.successes.length > 0) {
      const batch = gathering;
      gathering = newBatch();
      writing = batch;
      try {
        await recordSuccesses(db, batch.successes);
      } catch (error) {
        log.error(
          { err: error, delivery_ids: batch.successes.map((success) => success.deliveryId) },
          'logging delivered attempts failed; the sweeper will mark them abandoned',
        );
      }
      writing = undefined;
      batch.written();
    }
    draining = false;
  }

  return {
    record(success) {
      gathering.successes.push(success);
      if (!draining) {
        draining = true;
        // Never rejects: a failed write is logged inside.
        void drain();
      }
    },
    // Batches are written one after another, so the last one holding a success recorded so far is enough:
    // a failure waiting here never waits for successes recorded after the batch it joined closes.
    flushed() {
      if (gathering.successes.length > 0) return gathering.done;
      return writing?.done ?? Promise.resolve();
    },
    unwritten() {
      return [...(writing?.successes ?? []), ...gathering.successes].map((success) => success.deliveryId);
    },
  };
}

interface Batch {
  successes: Success[];
  /** Resolves once the batch is written (or its write has failed and been logged). */
  done: Promise<void>;
  written(): void;
}

function newBatch(): Batch {
  let written!: () => void;
  const done = new Promise<void>((resolve) => (written = resolve));
  return { successes: [], done, written };
}
