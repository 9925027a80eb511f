import { ServiceError } from '../errors.js';

/** 429 with the seconds to wait; the HTTP layer sends them as `retry_after` and `Retry-After`. */
export class RateLimitedError extends ServiceError {
  constructor(
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super('rate_limited', message);
  }
}
