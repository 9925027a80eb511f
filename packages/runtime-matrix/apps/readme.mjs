// What every cell serves, written as the README shows it (in JavaScript: no type annotations). Each runtime
// or framework entry mounts these on its own server; only the framework glue differs.
import { isWebhookVerificationError, STATUS_BY_REASON, verify, Webhooks } from '@svc-kit/webhooks';

/** The README's quickstart receiver: one secret from the environment, a typed handler. */
export function quickstartWebhooks(secret = process.env.SVC_WEBHOOK_SECRET ?? '') {
  const webhooks = new Webhooks({ secret });
  webhooks.on('message.received', async (event) => {
    // Deliveries carry ids only: fetch the message from the API when you need its content.
    console.log(`message in thread ${event.data.thread_id} for ${event.identity}`);
  });
  return webhooks;
}

/** The README's rotation receiver: the new secret next to the current one. */
export function rotationWebhooks() {
  return quickstartWebhooks([process.env.SVC_WEBHOOK_SECRET_NEW, process.env.SVC_WEBHOOK_SECRET]);
}

/** The README's first snippet, as pasted, given the raw body and a request with its headers. */
function firstSnippet(rawBody, req) {
  try {
    const event = verify(rawBody, req.headers, { secret: process.env.SVC_WEBHOOK_SECRET });
    // event.id, event.type, event.data … come from the signed body
    return event;
  } catch (error) {
    if (isWebhookVerificationError(error)) console.warn(error.reason, error.message);
    throw error;
  }
}

/**
 * The `/verify` route around the first snippet: `{ status, body }` with the event id, or the reason. With
 * `x-matrix-parse`, the snippet is handed the parsed JSON instead, the mistake it must name.
 */
export function verifyRoute(rawBody, headers) {
  const parse =
    (typeof headers.get === 'function' ? headers.get('x-matrix-parse') : headers['x-matrix-parse']) === '1';
  try {
    const event = firstSnippet(parse ? JSON.parse(rawBody) : rawBody, { headers });
    return { status: 200, body: JSON.stringify({ received: true, id: event.id }) };
  } catch (error) {
    if (!isWebhookVerificationError(error)) throw error;
    return {
      status: STATUS_BY_REASON[error.reason],
      body: JSON.stringify({ error: { reason: error.reason } }),
    };
  }
}

export function jsonResponse({ status, body }) {
  return new Response(body, { status, headers: { 'content-type': 'application/json' } });
}
