import { WebhookVerificationError } from '../errors';
import type { DuplicateStore } from './store';

export interface MemoryDuplicateStoreOptions {
  /** How long a claim lasts. Default 24 hours. */
  ttlMs?: number | undefined;
  /** Most ids remembered; the oldest are forgotten first. Default 10 000. */
  maxEntries?: number | undefined;
  /** Clock in milliseconds, like `Date.now` (tests inject one). */
  now?: (() => number) | undefined;
}

const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;
const DEFAULT_MAX_ENTRIES = 10_000;

function checkPositive(name: string, value: number, integer: boolean): number {
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new WebhookVerificationError(
      'invalid_options',
      `MemoryDuplicateStore: ${name} must be a ${integer ? 'whole ' : ''}number greater than 0 (got ${value}).`,
    );
  }
  return value;
}

/**
 * An in-process store: right for one process, lost on restart and not shared between instances (use a
 * shared store such as Redis when the receiver runs on several). Memory is bounded by `maxEntries`.
 */
export class MemoryDuplicateStore implements DuplicateStore {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  /** id → expiry. Insertion order is expiry order, since every claim lasts the same time. */
  readonly #expiries = new Map<string, number>();
  /** Claimed ids whose handlers succeeded; always a subset of the keys of `#expiries`. */
  readonly #done = new Set<string>();

  constructor(options: MemoryDuplicateStoreOptions = {}) {
    this.#ttlMs = checkPositive('ttlMs', options.ttlMs ?? DEFAULT_TTL_MS, false);
    this.#maxEntries = checkPositive('maxEntries', options.maxEntries ?? DEFAULT_MAX_ENTRIES, true);
    this.#now = options.now ?? Date.now;
  }

  /** Ids currently remembered (expired ones may linger until the next claim). */
  get size(): number {
    return this.#expiries.size;
  }

  claim(key: string): Promise<boolean> {
    const now = this.#now();
    this.#forgetExpired(now);
    const expiry = this.#expiries.get(key);
    if (expiry !== undefined && expiry > now) return Promise.resolve(false);
    this.#forget(key);
    this.#expiries.set(key, now + this.#ttlMs);
    while (this.#expiries.size > this.#maxEntries) this.#forget(this.#oldest()!);
    return Promise.resolve(true);
  }

  release(key: string): Promise<void> {
    this.#forget(key);
    return Promise.resolve();
  }

  markDone(key: string): Promise<void> {
    if (this.#expiries.has(key)) this.#done.add(key);
    return Promise.resolve();
  }

  isDone(key: string): Promise<boolean> {
    return Promise.resolve(this.#done.has(key));
  }

  #forget(key: string): void {
    this.#expiries.delete(key);
    this.#done.delete(key);
  }

  #oldest(): string | undefined {
    return this.#expiries.keys().next().value;
  }

  #forgetExpired(now: number): void {
    for (const [key, expiry] of this.#expiries) {
      if (expiry > now) return;
      this.#forget(key);
    }
  }
}
