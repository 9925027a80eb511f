import { ERROR_CODES, type ErrorCode } from '@svc-kit/contract';

/**
 * A refusal the sandbox answers with the spec's error body. Thrown by the pipeline and by the operation
 * behaviours; the status always comes from the contract's `ERROR_CODES`, so the two cannot disagree.
 */
export class Refusal extends Error {
  override readonly name = 'Refusal';
  readonly code: ErrorCode;
  readonly status: number;

  /** Seconds, on a 429: sent as `Retry-After` and `error.retry_after`. */
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, retryAfter?: number) {
    super(message);
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryAfter = retryAfter;
  }
}

export const notFound = (what: string) => new Refusal('not_found', `no such ${what}`);
export const invalid = (message: string) => new Refusal('invalid_request', message);
