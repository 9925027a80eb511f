import type { Operation } from '@svc-kit/contract';
import { InternalServerError, RateLimitError } from '../errors/api-errors.js';
import { APIConnectionError } from '../errors/connection-errors.js';
import type { ServiceError } from '../errors/service-error.js';

/** The backoff never grows past this, whatever `maxRetries` is. */
export const MAX_BACKOFF_MS = 8_000;

export interface RetrySettings {
  maxRetries: number;
  maxRetryDelayMs: number;
  initialRetryDelayMs: number;
}

/**
 * Whether repeating the operation after an unknown outcome (5xx, lost connection, timeout) cannot do
 * harm: reads (GET), deletions (DELETE: a repeat finds nothing left to delete), PATCHes (every PATCH of
 * the contract sets fields to given values), and operations flagged idempotent, whose repeats carry the
 * same Idempotency-Key so the service answers the first outcome again.
 */
export function isRepeatable(op: Pick<Operation, 'method' | 'flags'>): boolean {
  return op.method === 'GET' || op.method === 'DELETE' || op.method === 'PATCH' || op.flags.idempotent;
}

/**
 * How long to wait before the next attempt, or `undefined` to give up and throw `failure`.
 *
 * - 429 is retried for every operation: the service refused before doing anything. It waits the time
 *   the service asks for; when that is longer than `maxRetryDelayMs`, it gives up at once.
 * - 5xx, connection errors and timeouts are retried only for repeatable operations.
 * - Everything else (4xx) is final.
 */
export function retryDelay(
  op: Pick<Operation, 'method' | 'flags'>,
  failure: ServiceError,
  retriesDone: number,
  settings: RetrySettings,
  random: () => number = Math.random,
): number | undefined {
  if (retriesDone >= settings.maxRetries) return undefined;
  if (failure instanceof RateLimitError) {
    if (failure.retryAfter === undefined) return backoff(retriesDone, settings, random);
    const askedMs = failure.retryAfter * 1000;
    return askedMs > settings.maxRetryDelayMs ? undefined : askedMs;
  }
  if (!isRepeatable(op)) return undefined;
  if (failure instanceof InternalServerError || failure instanceof APIConnectionError) {
    return backoff(retriesDone, settings, random);
  }
  return undefined;
}

/** Exponential backoff with full jitter: uniform in [0, min(initial * 2^n, 8 s, ceiling)). */
export function backoff(retriesDone: number, settings: RetrySettings, random: () => number): number {
  const cap = Math.min(
    settings.initialRetryDelayMs * 2 ** retriesDone,
    MAX_BACKOFF_MS,
    settings.maxRetryDelayMs,
  );
  return Math.floor(random() * cap);
}
