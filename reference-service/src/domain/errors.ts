import type { ErrorCode } from '@svc-kit/contract';

/** A refusal answered on purpose with its code's status; messages are for the caller, never secrets. */
export class ServiceError extends Error {
  override name = 'ServiceError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** 429 with the seconds to wait; the error body carries them as `retry_after`, and `Retry-After` too. */
export class RateLimitedError extends ServiceError {
  constructor(
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super('rate_limited', message);
  }
}

/** The error and the errors it wraps (`cause`), outermost first: a library may wrap what it was handed. */
export function causesOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}
