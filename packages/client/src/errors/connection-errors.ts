import { ServiceError } from './service-error.js';

/** No answer arrived: DNS, TCP, TLS, a reset connection, or a `fetch` that threw. */
export class APIConnectionError extends ServiceError {
  static override readonly kind: string = 'APIConnectionError';

  constructor(message = 'Connection error.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No complete answer within `timeoutMs` (one attempt: connecting, waiting and reading the body). */
export class APITimeoutError extends APIConnectionError {
  static override readonly kind: string = 'APITimeoutError';
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`Request timed out after ${timeoutMs} ms.`);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's `AbortSignal` fired. Never retried. `cause` is the signal's reason. */
export class APIUserAbortError extends ServiceError {
  static override readonly kind: string = 'APIUserAbortError';

  constructor(reason?: unknown) {
    super('Request was aborted.', reason === undefined ? undefined : { cause: reason });
  }
}
