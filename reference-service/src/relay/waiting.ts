import type { PostOutcome } from '../outbound/guarded-client.js';
import { failed, type RelayFailure, type Waiting } from './types.js';

/**
 * The relayed deliveries this process's workers wait on, by delivery id. Each is settled exactly once: with
 * the CLI's report, or failed with a reason when its timer runs out or its stream closes.
 */
export class WaitingDeliveries {
  readonly #waiting = new Map<string, Waiting>();

  /** Starts waiting; the returned promise resolves when the delivery is settled. */
  wait(deliveryId: string, started: number): Promise<PostOutcome> {
    return new Promise<PostOutcome>((resolve) => {
      this.#waiting.set(deliveryId, { streamId: undefined, started, timer: undefined, settle: resolve });
    });
  }

  get(deliveryId: string): Waiting | undefined {
    return this.#waiting.get(deliveryId);
  }

  /** Fails the delivery with `why` unless it is settled within `ms` (replaces an earlier timer). */
  arm(deliveryId: string, ms: number, why: RelayFailure): void {
    const waiting = this.#waiting.get(deliveryId);
    if (waiting === undefined) return;
    clearTimeout(waiting.timer);
    waiting.timer = setTimeout(() => this.settle(deliveryId, failed(why, waiting.started)), ms);
    waiting.timer.unref();
  }

  /** Answers the worker waiting on the delivery, if any still is. */
  settle(deliveryId: string, outcome: PostOutcome): boolean {
    const waiting = this.#waiting.get(deliveryId);
    if (waiting === undefined) return false;
    this.#waiting.delete(deliveryId);
    clearTimeout(waiting.timer);
    waiting.settle(outcome);
    return true;
  }

  /** Fails every delivery written to the stream (all of them, without a stream id). */
  fail(why: RelayFailure, streamId?: string): void {
    for (const [deliveryId, waiting] of [...this.#waiting]) {
      if (streamId === undefined || waiting.streamId === streamId) {
        this.settle(deliveryId, failed(why, waiting.started));
      }
    }
  }
}
