import type { WebhookErrorReason, WebhookVerificationError } from '../errors';

/** What `handle()` answers; adapters copy it to their framework's response unchanged. */
export interface WebhookResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Reasons in an error answer: every verification reason, plus the receiver's own. */
export type WebhookResponseReason =
  | WebhookErrorReason
  | 'handler_failed'
  | 'duplicate_store_failed'
  | 'duplicate_in_progress'
  | 'method_not_allowed';

/**
 * 400: the request itself is unusable. 401: it is not authentic or not fresh. 500: the receiver is
 * mis-configured, so the sender's delivery log shows a receiver fault rather than a bad delivery.
 */
export const STATUS_BY_REASON: Readonly<Record<WebhookErrorReason, number>> = {
  missing_header: 400,
  malformed_header: 400,
  body_was_parsed: 400,
  invalid_json: 400,
  invalid_payload: 400,
  header_mismatch: 400,
  no_matching_signature: 401,
  timestamp_too_old: 401,
  timestamp_too_new: 401,
  invalid_secret: 500,
  invalid_options: 500,
};

/** The service keeps the first 500 bytes of each answer in its delivery log; answers fit in that. */
export const MAX_RESPONSE_BYTES = 500;

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
const encoder = new TextEncoder();

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

function json(status: number, body: unknown, extraHeaders?: Record<string, string>): WebhookResponse {
  return { status, headers: { ...JSON_HEADERS, ...extraHeaders }, body: JSON.stringify(body) };
}

/** `{"error":{"reason","message"}}`, the message shortened if needed so the whole answer is logged. */
export function errorResponse(
  status: number,
  reason: WebhookResponseReason,
  message: string,
  extraHeaders?: Record<string, string>,
): WebhookResponse {
  let shown = message;
  let response = json(status, { error: { reason, message: shown } }, extraHeaders);
  while (byteLength(response.body) > MAX_RESPONSE_BYTES && shown.length > 0) {
    shown = shown.slice(
      0,
      Math.max(0, shown.length - Math.max(8, byteLength(response.body) - MAX_RESPONSE_BYTES)),
    );
    response = json(status, { error: { reason, message: `${shown}…` } }, extraHeaders);
  }
  return response;
}

export function verificationErrorResponse(error: WebhookVerificationError): WebhookResponse {
  return errorResponse(STATUS_BY_REASON[error.reason] ?? 500, error.reason, error.message);
}

export function acceptedResponse(extra?: { duplicate?: true; handlerFailed?: true }): WebhookResponse {
  return json(200, {
    received: true,
    ...(extra?.duplicate ? { duplicate: true } : {}),
    ...(extra?.handlerFailed ? { handler_failed: true } : {}),
  });
}
