import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { componentRef } from './json-schema.js';

/** The shared refusal answers, one per status; every operation refers to them by `$ref`. */
const refusals: Record<number, { name: string; description: string; example: ErrorCode }> = {
  400: { name: 'BadRequest', description: 'The arguments did not validate.', example: 'invalid_request' },
  401: {
    name: 'Unauthorized',
    description: 'No portal session and no live API key.',
    example: 'unauthenticated',
  },
  403: {
    name: 'Forbidden',
    description:
      'The policy refused: a missing permission, a cross-site request, a step-up the caller cannot give, or a suspended workspace. `error.code` says which.',
    example: 'forbidden',
  },
  404: {
    name: 'NotFound',
    description: 'No such resource, or none the caller may see.',
    example: 'not_found',
  },
  422: {
    name: 'IdempotencyMismatch',
    description: 'The Idempotency-Key was used within 24 hours with different arguments.',
    example: 'idempotency_mismatch',
  },
  408: {
    name: 'RequestTimeout',
    description: 'The request was not received in full in time. Nothing was done; sending it again is safe.',
    example: 'request_timeout',
  },
  429: {
    name: 'TooManyRequests',
    description:
      'This client address sent too many refused credentials lately (a guessing limit), or the reference service’s budget of requests for this workspace is spent; either is counted before the operation runs. `error.retry_after` and the Retry-After header say when to try again.',
    example: 'rate_limited',
  },
  431: {
    name: 'RequestHeaderFieldsTooLarge',
    description: 'The request’s headers are larger than the service accepts. Nothing was done.',
    example: 'headers_too_large',
  },
  502: {
    name: 'BadGateway',
    description:
      'The upstream server this operation depends on failed or answered something unusable (for authorizeIntegration, an upstream that does not speak OAuth). Nothing was changed.',
    example: 'upstream_failed',
  },
  503: {
    name: 'ServiceUnavailable',
    description:
      'Something the answer needs is away for a moment: the service’s database gave the request no connection in time (any operation), the contact’s peer could not be reached for an answer this operation needs, or a first call with the same Idempotency-Key is still running. Retry later, with the same Idempotency-Key where the operation takes one.',
    example: 'service_unavailable',
  },
};

/**
 * The 429 of an operation that calls a contact's peer: its outbound budgets as well as the guessing limit
 * every operation has. Each operation names only the 429s it can answer.
 */
const OUTBOUND_429 = {
  name: 'OutboundBudgetSpent',
  description:
    'The outbound budget is spent (per contact, for the identity, or to strangers), the reference service’s budget of requests for this workspace is spent, or this client address sent too many refused credentials lately. `error.retry_after` and the Retry-After header say when to try again.',
  example: 'rate_limited' as const,
};

/**
 * The 429 of listWebhookDeliveries: a status or event type filter spends the workspace's budget of reads
 * through the filter window, as well as the guessing limit every operation has.
 */
const FILTERED_READS_429 = {
  name: 'FilteredReadBudgetSpent',
  description:
    'The workspace’s budget of delivery log reads filtered by status or event type is spent (reads without those filters, or by event id, do not spend it), the reference service’s budget of requests for this workspace is spent, or this client address sent too many refused credentials lately. `error.retry_after` and the Retry-After header say when to try again.',
  example: 'rate_limited' as const,
};

/** Which budget a documented 429 stands for: a contact's peer's (`outbound`) or the filtered log reads'. */
export type Budget429 = 'outbound' | 'filtered-reads';

export const RETRY_AFTER_HEADER = 'RetryAfter';
export const IDEMPOTENCY_KEY_PARAMETER = 'IdempotencyKey';

/** The shared response of a refusal status; `budget`: the one the operation's own 429 stands for. */
export function refusalRef(status: number, budget?: Budget429): { $ref: string } {
  const budgeted =
    budget === 'outbound' ? OUTBOUND_429 : budget === 'filtered-reads' ? FILTERED_READS_429 : undefined;
  const refusal = status === 429 && budgeted ? budgeted : refusals[status];
  if (!refusal) throw new Error(`no shared response for refusal status ${status}`);
  return { $ref: `#/components/responses/${refusal.name}` };
}

function exampleBody(code: ErrorCode) {
  const body: { code: string; message: string; request_id: string; retry_after?: number } = {
    code,
    message: ERROR_CODES[code].description,
    request_id: 'req_01J9Z3V6M8Q2W4E6R8T0Y2U4I6',
  };
  if (code === 'rate_limited') body.retry_after = 7;
  return { error: body };
}

export function refusalResponses(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, { name, description, example }] of [
    ...Object.entries(refusals),
    ['429', OUTBOUND_429] as const,
    ['429', FILTERED_READS_429] as const,
  ]) {
    out[name] = {
      description,
      ...(status === '429'
        ? { headers: { 'Retry-After': { $ref: `#/components/headers/${RETRY_AFTER_HEADER}` } } }
        : {}),
      content: {
        'application/json': { schema: { $ref: componentRef('ErrorBody') }, example: exampleBody(example) },
      },
    };
  }
  return out;
}

export const sharedHeaders = {
  [RETRY_AFTER_HEADER]: {
    description: 'Seconds until the window closes; the same number as `error.retry_after`.',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
};

export const sharedParameters = {
  [IDEMPOTENCY_KEY_PARAMETER]: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: a repeat with the same key within 24 hours returns the first answer; the same key with different arguments is refused with 422 `idempotency_mismatch`.',
    schema: { type: 'string', minLength: 1 },
  },
};
