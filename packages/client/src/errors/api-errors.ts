import type { ErrorCode } from '@svc-kit/contract';
import { ServiceError } from './service-error.js';

/**
 * A code of the contract's `ERROR_CODES`, checked by the compiler when compared (`'no_such_code'` is an
 * error); any other string still fits, so a code added by a newer service is not lost.
 */
export type APIErrorCode = ErrorCode | (string & {});

export interface APIErrorInit {
  status: number;
  /** The error body's `error.code`; `undefined` when the answer was not the service's error body. */
  code: APIErrorCode | undefined;
  message: string;
  requestId: string | undefined;
  headers: Headers;
  /** The parsed JSON answer, or its text when it is not JSON, or `undefined` when it was empty. */
  body: unknown;
}

/** The service answered with a refusal (a status outside 2xx). */
export class APIError extends ServiceError {
  static override readonly kind: string = 'APIError';
  readonly status: number;
  /** Stable machine-readable code, e.g. `not_found` or `step_up_required` (see `ERROR_CODES`). */
  readonly code: APIErrorCode | undefined;
  /** The id the service logged the call under; quote it when asking for help. */
  readonly requestId: string | undefined;
  readonly headers: Headers;
  readonly body: unknown;

  constructor(init: APIErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.headers = init.headers;
    this.body = init.body;
  }

  /**
   * Whether the service answered with `code`. Unlike `error.code === '…'`, which must accept any string
   * (codes may be added), the argument is checked against the contract: a misspelt code does not compile.
   */
  hasCode(code: ErrorCode): boolean {
    return this.code === code;
  }
}

/** 400: the arguments did not validate on the service. */
export class BadRequestError extends APIError {
  static override readonly kind: string = 'BadRequestError';
}

/** 401: no portal session and no live API key. */
export class AuthenticationError extends APIError {
  static override readonly kind: string = 'AuthenticationError';
}

/** 403: the policy refused (`forbidden`, `step_up_required`, `cross_site`, `workspace_suspended`, ...). */
export class PermissionDeniedError extends APIError {
  static override readonly kind: string = 'PermissionDeniedError';
}

/** 404: no such resource, or none the caller may see. */
export class NotFoundError extends APIError {
  static override readonly kind: string = 'NotFoundError';
}

/** 422: an Idempotency-Key was reused with different arguments. */
export class IdempotencyMismatchError extends APIError {
  static override readonly kind: string = 'IdempotencyMismatchError';
}

/** 429: an outbound budget is spent. */
export class RateLimitError extends APIError {
  static override readonly kind: string = 'RateLimitError';
  /** Seconds until the window closes, from the body's `retry_after` or the `Retry-After` header. */
  readonly retryAfter: number | undefined;

  constructor(init: APIErrorInit & { retryAfter: number | undefined }) {
    super(init);
    this.retryAfter = init.retryAfter;
  }
}

/** 500 and above: the service (or a proxy in front of it) failed. */
export class InternalServerError extends APIError {
  static override readonly kind: string = 'InternalServerError';
}
