import type { WebhookResponse } from '@svc-kit/webhooks';

/** Refusals decided before the core sees the request: it never got a usable raw body. */
export type AdapterRefusalReason = 'body_too_large' | 'body_was_parsed' | 'body_incomplete';

/**
 * The same `{"error":{"reason","message"}}` answer as `Webhooks.handle()` gives, so a sender's delivery log
 * and a receiver's monitoring read every refusal alike. Messages are short fixed texts, so the whole answer
 * fits in the excerpt the service logs (`MAX_RESPONSE_BYTES`; a test holds them to it).
 */
export function adapterRefusal(
  status: number,
  reason: AdapterRefusalReason,
  message: string,
): WebhookResponse {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
    body: JSON.stringify({ error: { reason, message } }),
  };
}

export function bodyTooLarge(maxBodyBytes: number): WebhookResponse {
  return adapterRefusal(
    413,
    'body_too_large',
    `The body is larger than this receiver's limit of ${maxBodyBytes} bytes (option maxBodyBytes). ` +
      'Deliveries carry ids only and are a few kilobytes; raise the limit only if genuine deliveries hit it.',
  );
}

/** The client closed the connection before the whole body arrived: there is nothing to verify. */
export function bodyIncomplete(): WebhookResponse {
  return adapterRefusal(
    400,
    'body_incomplete',
    'The request ended before its whole body arrived (the client aborted the upload or the connection broke).',
  );
}
