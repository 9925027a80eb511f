export {
  APIError,
  type APIErrorCode,
  AuthenticationError,
  BadRequestError,
  IdempotencyMismatchError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from './api-errors.js';
export { APIConnectionError, APITimeoutError, APIUserAbortError } from './connection-errors.js';
export { ServiceError } from './service-error.js';
export {
  ClientValidationError,
  ResponseValidationError,
  type ValidationIssue,
  type ValidationTarget,
} from './validation-errors.js';
