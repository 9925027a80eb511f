import type { ErrorCode } from '@svc-kit/contract';

/**
 * A refusal the service answers on purpose. The HTTP layer turns it into the error body with the status
 * the code carries in `ERROR_CODES`. Messages are written for the caller and never hold secrets.
 */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}
