import { ERROR_CODES, type ErrorCode, isErrorCode, isOperationId, type OperationId } from '@svc-kit/contract';
import type { ErrorAnswer } from '../http/respond.js';

/**
 * A failure the sandbox answers instead of running an operation:
 * - a code of the contract's `ERROR_CODES` (`'unauthenticated'`, `'forbidden'`, `'not_found'`,
 *   `'idempotency_mismatch'`, `'rate_limited'`, `'internal_error'`, …) with its registered status;
 * - `'service_unavailable'`: 503;
 * - `'network_error'`: no HTTP answer at all (msw's `HttpResponse.error()`; `fetch` rejects);
 * - any status from 400 to 599 with a code of your choosing.
 */
export type InjectedFailure =
  | ErrorCode
  | 'service_unavailable'
  | 'network_error'
  | { status: number; code: string; message?: string; retryAfter?: number };

export interface InjectOptions {
  /** How many calls fail. Default: every call, until `clearInjections()` or `reset()`. */
  times?: number;
  /** Seconds, sent as `Retry-After` and as `error.retry_after`. Default 1 on a 429. */
  retryAfter?: number;
  /** The `error.message`. Default: one naming the injection. */
  message?: string;
}

/** Which operations an injection applies to: one, or `'*'` for all of them. */
export type InjectionTarget = OperationId | '*';

export type ResolvedFailure = { kind: 'network' } | ({ kind: 'error' } & ErrorAnswer);

interface Injection {
  target: InjectionTarget;
  failure: ResolvedFailure;
  remaining: number;
}

const DEFAULT_RETRY_AFTER = 1;

function nonNegativeInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new TypeError(`inject: ${what} must be a non-negative integer`);
  return value;
}

function resolve(failure: InjectedFailure, options: InjectOptions): ResolvedFailure {
  if (failure === 'network_error') return { kind: 'network' };
  let status: number;
  let code: string;
  let message = options.message;
  let retryAfter = options.retryAfter;
  if (typeof failure === 'string') {
    if (failure === 'service_unavailable') status = 503;
    else if (isErrorCode(failure)) status = ERROR_CODES[failure].status;
    else throw new TypeError(`inject: unknown failure "${String(failure)}"`);
    code = failure;
  } else {
    if (!Number.isInteger(failure.status) || failure.status < 400 || failure.status > 599) {
      throw new TypeError('inject: status must be an integer from 400 to 599');
    }
    if (typeof failure.code !== 'string' || failure.code === '')
      throw new TypeError('inject: code must be a non-empty string');
    status = failure.status;
    code = failure.code;
    message = failure.message ?? message;
    retryAfter = failure.retryAfter ?? retryAfter;
  }
  if (retryAfter === undefined && status === 429) retryAfter = DEFAULT_RETRY_AFTER;
  if (retryAfter !== undefined) nonNegativeInteger(retryAfter, 'retryAfter');
  return {
    kind: 'error',
    status,
    code,
    message: message ?? `injected by the sandbox: ${code}`,
    retryAfter,
  };
}

/** Failures queued per operation. The first injection that matches a call is used (and counted down). */
export class Injections {
  #queue: Injection[] = [];

  add(target: InjectionTarget, failure: InjectedFailure, options: InjectOptions = {}): void {
    if (target !== '*' && !isOperationId(target))
      throw new TypeError(`inject: unknown operation "${String(target)}"`);
    const times = options.times ?? Number.POSITIVE_INFINITY;
    if (times !== Number.POSITIVE_INFINITY && nonNegativeInteger(times, 'times') === 0) {
      throw new TypeError('inject: times must be at least 1');
    }
    this.#queue.push({ target, failure: resolve(failure, options), remaining: times });
  }

  /** The failure for this call, if one is queued; counts it down. */
  take(operationId: OperationId): ResolvedFailure | undefined {
    const index = this.#queue.findIndex((item) => item.target === '*' || item.target === operationId);
    if (index < 0) return undefined;
    const item = this.#queue[index]!;
    item.remaining -= 1;
    if (item.remaining <= 0) this.#queue.splice(index, 1);
    return item.failure;
  }

  clear(): void {
    this.#queue = [];
  }
}
