import { MemoryDuplicateStore } from './memory-store';
import type { DuplicateStore } from './store';

export interface DuplicateGuardOptions {
  /** Prefix of the store keys, to share one store between receivers. Default `svc-webhooks:event:`. */
  keyPrefix?: string | undefined;
  /**
   * What a store failure (say, Redis unreachable) means. `true` (default): process the delivery anyway.
   * The service sends each event once today, so refusing would lose the event to prevent a duplicate
   * that cannot happen. `false`: refuse it (the claim throws).
   */
  failOpen?: boolean | undefined;
  /** Told about store failures, whatever `failOpen` says (log them here). */
  onStoreError?: ((error: unknown) => void) | undefined;
}

/**
 * Runs each event at most once, keyed on the event id (stable per event; never the delivery id, which
 * changes per attempt). The service delivers once today; the guard is ready for at-least-once delivery.
 */
export class DuplicateGuard {
  readonly #store: DuplicateStore;
  readonly #prefix: string;
  readonly #failOpen: boolean;
  readonly #onStoreError: ((error: unknown) => void) | undefined;
  /** Event ids being processed in this process: each resolves `true` once its handlers succeeded. */
  readonly #running = new Map<string, Promise<boolean>>();

  constructor(store: DuplicateStore = new MemoryDuplicateStore(), options: DuplicateGuardOptions = {}) {
    this.#store = store;
    this.#prefix = options.keyPrefix ?? 'svc-webhooks:event:';
    this.#failOpen = options.failOpen ?? true;
    this.#onStoreError = options.onStoreError;
  }

  /** `true` when this is the first claim of `eventId` (run the handlers), `false` for a duplicate. */
  async claim(eventId: string): Promise<boolean> {
    try {
      return (await this.#store.claim(this.#prefix + eventId)) === true;
    } catch (error) {
      this.#report(error);
      if (this.#failOpen) return true;
      throw error;
    }
  }

  /**
   * Starts processing `eventId`: resolves to a function to call with the outcome when this delivery
   * should run the handlers, to `undefined` for a duplicate, or to `'in_progress'` when the store (shared
   * with another instance, and able to say so) shows the first delivery still running elsewhere. A duplicate of an event still being
   * processed in this process waits for it: it is a duplicate only if the first succeeded; if the first
   * failed (and gave the id back), the waiting delivery claims the id and runs the handlers itself. So no
   * sender is ever told an event was received while nobody has handled it yet.
   */
  async begin(eventId: string): Promise<((succeeded: boolean) => Promise<void>) | 'in_progress' | undefined> {
    for (;;) {
      const running = this.#running.get(eventId);
      if (running !== undefined) {
        if (await running) return undefined;
        continue;
      }
      // Reserved before the store is asked, so that every later delivery of this process waits on this one.
      let settle: (succeeded: boolean) => void = () => {};
      this.#running.set(eventId, new Promise<boolean>((resolve) => (settle = resolve)));
      let first: boolean;
      try {
        first = await this.claim(eventId);
      } catch (error) {
        this.#running.delete(eventId);
        settle(false);
        throw error;
      }
      if (!first) {
        // Claimed earlier, or by another instance sharing the store: done there, or still running?
        const done = await this.#isDone(eventId);
        this.#running.delete(eventId);
        settle(done);
        return done ? undefined : 'in_progress';
      }
      return async (succeeded) => {
        if (succeeded) await this.#markDone(eventId);
        else await this.release(eventId);
        this.#running.delete(eventId);
        settle(succeeded);
      };
    }
  }

  /** Gives the id back after a failed processing, so a redelivery is not taken for a duplicate. */
  async release(eventId: string): Promise<void> {
    try {
      await this.#store.release(this.#prefix + eventId);
    } catch (error) {
      this.#report(error);
    }
  }

  /** Without `isDone` in the store, a claimed id counts as handled (the store cannot tell). */
  async #isDone(eventId: string): Promise<boolean> {
    if (this.#store.isDone === undefined) return true;
    try {
      return (await this.#store.isDone(this.#prefix + eventId)) === true;
    } catch (error) {
      this.#report(error);
      return true;
    }
  }

  async #markDone(eventId: string): Promise<void> {
    try {
      await this.#store.markDone?.(this.#prefix + eventId);
    } catch (error) {
      this.#report(error);
    }
  }

  #report(error: unknown): void {
    try {
      this.#onStoreError?.(error);
    } catch {
      // A failing logger must not decide whether an event is processed.
    }
  }
}
