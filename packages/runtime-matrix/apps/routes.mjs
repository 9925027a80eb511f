// What every cell serves beside the README's quickstart (which is on /webhooks), built from the README's
// own snippets in apps/readme/ (written by src/readme-text.mjs, handed in by each runtime's entry): the
// first snippet on /verify, the rotation snippet's receiver on /rotation, and on /parsed the framework's
// body parser placed before the SDK, the mistake the README warns about.
import { isWebhookVerificationError, STATUS_BY_REASON } from '@svc-kit/webhooks';

/** `readme`: `{ firstSnippet, rotationWebhooks }`, from apps/readme/first-snippet and rotation. */
export function createRoutes({ firstSnippet, rotationWebhooks }) {
  return {
    rotation: rotationWebhooks(),
    parsed: rotationWebhooks(),
    /**
     * The `/verify` route: runs the first snippet on the raw body and the request's headers, and answers
     * `{ status, body }` (200, or the status of the reason it threw). With `x-matrix-parse`, the snippet
     * is handed the parsed JSON instead, the mistake it must name.
     */
    verify(rawBody, headers) {
      const parse =
        (typeof headers.get === 'function' ? headers.get('x-matrix-parse') : headers['x-matrix-parse']) ===
        '1';
      try {
        firstSnippet(parse ? JSON.parse(rawBody) : rawBody, { headers });
        return { status: 200, body: JSON.stringify({ received: true }) };
      } catch (error) {
        if (!isWebhookVerificationError(error)) throw error;
        return {
          status: STATUS_BY_REASON[error.reason],
          body: JSON.stringify({ error: { reason: error.reason } }),
        };
      }
    },
  };
}

export function jsonResponse({ status, body }) {
  return new Response(body, { status, headers: { 'content-type': 'application/json' } });
}
