/**
 * Every `error.code` the service answers, with the HTTP status it comes with. One registry: the reference
 * service, the mock and the client read it, and a test keeps it in step with `docs/guide/error-codes.md`.
 * Codes are stable strings; a code is never renamed or removed within /v1.
 */
export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    description: 'The path, query or body did not validate against the operation’s schema or policy.',
  },
  unauthenticated: {
    status: 401,
    description: 'No portal session and no live API key (malformed, unknown and revoked keys look the same).',
  },
  forbidden: {
    status: 403,
    description: 'The caller lacks the operation’s permission, or the key’s scopes do not include it.',
  },
  step_up_required: {
    status: 403,
    description: 'The operation needs a fresh step-up (MFA within 15 minutes); API keys can never step up.',
  },
  cross_site: {
    status: 403,
    description: 'A state-changing call made with a session cookie did not come from the same origin.',
  },
  workspace_suspended: {
    status: 403,
    description: 'The workspace is suspended, so operations marked suspended are refused.',
  },
  workspace_deletion_hold: {
    status: 403,
    description: 'The workspace is on deletion hold, so operations marked suspended are refused.',
  },
  not_found: {
    status: 404,
    description: 'No such resource, or none the caller may see.',
  },
  conflict: {
    status: 409,
    description: 'The request clashes with what exists (an account with this email, MFA already enrolled).',
  },
  idempotency_mismatch: {
    status: 422,
    description: 'An Idempotency-Key was reused within 24 hours with different arguments.',
  },
  request_timeout: {
    status: 408,
    description: 'The request was not received in full in time; nothing was done. Sending it again is safe.',
  },
  rate_limited: {
    status: 429,
    description:
      'A rate limit is spent: an outbound budget of an operation that calls a contact’s peer, the workspace’s budget of filtered delivery log reads, the workspace’s budget of requests, or the guessing limit on refused credentials; retry after `retry_after` seconds.',
  },
  headers_too_large: {
    status: 431,
    description:
      'The request’s headers are larger than the service accepts (16 KiB in all); nothing was done.',
  },
  internal_error: {
    status: 500,
    description: 'The service failed unexpectedly; the request id identifies it in the service’s logs.',
  },
  not_implemented: {
    status: 501,
    description: 'The reference service does not serve this operation yet; the contract describes it.',
  },
  upstream_failed: {
    status: 502,
    description:
      'The upstream server the operation depends on failed or answered something unusable; nothing was changed.',
  },
  service_unavailable: {
    status: 503,
    description:
      "Something the answer needs is away for a moment (the service's database, the contact's peer, or a first call with the same Idempotency-Key still running); retry later.",
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The HTTP status that goes with a code. */
export function statusOfErrorCode(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}
