import { HttpResponse, type JsonBodyType } from 'msw';

export const REQUEST_ID_HEADER = 'x-request-id';

export interface ErrorAnswer {
  status: number;
  code: string;
  message: string;
  /** Seconds; sent both as `Retry-After` and as `error.retry_after`. */
  retryAfter?: number | undefined;
}

/** The spec's error body, with the request id in the body and in the header. */
export function errorResponse(
  requestId: string,
  failure: ErrorAnswer,
  extraHeaders: Readonly<Record<string, string>> = {},
): Response {
  const headers = new Headers({ [REQUEST_ID_HEADER]: requestId, ...extraHeaders });
  const error: Record<string, unknown> = {
    code: failure.code,
    message: failure.message,
    request_id: requestId,
  };
  if (failure.retryAfter !== undefined) {
    error.retry_after = failure.retryAfter;
    headers.set('retry-after', String(failure.retryAfter));
  }
  return HttpResponse.json({ error }, { status: failure.status, headers });
}

/** A success answer; a 204 has no body at all, a JSON `null` body is sent as `null`. */
export function successResponse(
  requestId: string,
  status: number,
  body: unknown,
  extraHeaders: Readonly<Record<string, string>> = {},
): Response {
  const headers = new Headers({ [REQUEST_ID_HEADER]: requestId, ...extraHeaders });
  if (status === 204) return new HttpResponse(null, { status, headers });
  return HttpResponse.json(body as JsonBodyType, { status, headers });
}
