import {
  APIError,
  type APIErrorInit,
  AuthenticationError,
  BadRequestError,
  IdempotencyMismatchError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
} from './api-errors.js';
import { parseRetryAfterHeader } from './retry-after.js';

/** The fields of the service's error body, read leniently: a field of the wrong type is ignored. */
interface ErrorFields {
  code: string;
  message: string;
  requestId: string | undefined;
  retryAfter: number | undefined;
}

const EXCERPT_CHARS = 200;

/**
 * Builds the error for a refusal. Never throws: any text (HTML from a proxy, truncated JSON, nothing)
 * gives the class of its status and a message that says what arrived. `redact` removes secrets from
 * everything taken from the answer, in case a server or proxy echoes the request's credentials.
 */
export function errorFromResponse(
  response: Pick<Response, 'status' | 'statusText' | 'headers'>,
  text: string,
  redact: (text: string) => string,
): APIError {
  const { status, headers } = response;
  const safeText = redact(text);
  const json = parseJson(safeText);
  const body = json.ok ? json.value : safeText === '' ? undefined : safeText;
  const fields = json.ok ? readErrorFields(json.value) : undefined;
  const requestId = fields?.requestId ?? headers.get('x-request-id') ?? undefined;
  const summary = fields
    ? `${status} ${fields.code}: ${fields.message}`
    : `${status} ${redact(response.statusText) || 'error'}: ${describeUnexpectedBody(safeText, json.ok)}`;
  const init: APIErrorInit = {
    status,
    code: fields?.code,
    message: requestId === undefined ? summary : `${summary} (request ${requestId})`,
    requestId,
    headers,
    body,
  };
  return errorForStatus(init, fields?.retryAfter ?? parseRetryAfterHeader(headers.get('retry-after')));
}

function errorForStatus(init: APIErrorInit, retryAfter: number | undefined): APIError {
  const { status } = init;
  if (status === 400) return new BadRequestError(init);
  if (status === 401) return new AuthenticationError(init);
  if (status === 403) return new PermissionDeniedError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 422) return new IdempotencyMismatchError(init);
  if (status === 429) return new RateLimitError({ ...init, retryAfter });
  if (status >= 500) return new InternalServerError(init);
  return new APIError(init);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function readErrorFields(value: unknown): ErrorFields | undefined {
  if (!isRecord(value) || !isRecord(value.error)) return undefined;
  const { code, message, request_id: requestId, retry_after: retryAfter } = value.error;
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return {
    code,
    message,
    requestId: typeof requestId === 'string' && requestId !== '' ? requestId : undefined,
    retryAfter:
      typeof retryAfter === 'number' && Number.isInteger(retryAfter) && retryAfter >= 0
        ? retryAfter
        : undefined,
  };
}

function describeUnexpectedBody(text: string, isJson: boolean): string {
  if (text.trim() === '') return 'empty answer (not the service’s error body)';
  const excerpt = text.replace(/\s+/g, ' ').trim();
  const shown = excerpt.length > EXCERPT_CHARS ? `${excerpt.slice(0, EXCERPT_CHARS)}…` : excerpt;
  return `${isJson ? 'JSON that is not the service’s error body' : 'answer is not JSON'}: ${shown}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
