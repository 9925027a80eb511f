import type { Db } from '../store/db.js';
import { type AttemptResult, recordSuccesses } from '../store/queries/deliveries-claim.js';

type Success = Omit<AttemptResult, 'ok'>;

/**
 * Group commit for successful attempts: while one batch is being written, the successes that finish
 * meanwhile wait and go out together in the next statement. At idle a success is written at once; under
 * load the log costs one statement per batch instead of one per delivery (on PGlite every statement runs
 * on the event loop, so this is what lets the HTTP side keep its 64 attempts busy).
 */
export function createSuccessLog(db: Db): { record(success: Success): Promise<void> } {
  let queue: { success: Success; done: () => void; failed: (error: unknown) => void }[] = [];
  let writing = false;

  async function drain(): Promise<void> {
    writing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await recordSuccesses(
          db,
          batch.map((item) => item.success),
        );
        for (const item of batch) item.done();
      } catch (error) {
        for (const item of batch) item.failed(error);
      }
    }
    writing = false;
  }

  return {
    record(success) {
      return new Promise<void>((done, failed) => {
        queue.push({ success, done, failed });
        if (!writing) void drain();
      });
    },
  };
}
