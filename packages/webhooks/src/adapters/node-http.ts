import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BodyLimitOptions, resolveMaxBodyBytes } from './body-limit';
import { createNodeResponder } from './node-body';
import type { WebhookReceiver } from './receiver';

export type NodeHandlerOptions = BodyLimitOptions;

/** A complete `node:http` request listener: `createServer(handler)`, or call it from your own listener. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

const BODY_ALREADY_READ =
  "This request's body was already read before the webhook handler got it, so the signed bytes are lost. " +
  'Call the handler first, with the untouched request.';

/**
 * Receives deliveries on a bare `node:http` (or `node:https`) server: reads the raw body (bounded by
 * `maxBodyBytes`), hands it to `webhooks.handle()` and sends back its answer. It answers every request it
 * is given (anything but POST with 405), so route to it yourself when the server has other paths. Nothing a
 * client does makes it throw or reject: an upload aborted half-way is simply dropped.
 */
export function createNodeHandler(webhooks: WebhookReceiver, options: NodeHandlerOptions = {}): NodeHandler {
  const respond = createNodeResponder(webhooks, resolveMaxBodyBytes(options), BODY_ALREADY_READ);
  return (req, res) => {
    void respond(req, res);
  };
}

// Named in this adapter's signatures, so documented and importable from here.
export type { BodyLimitOptions } from './body-limit';
export type { WebhookReceiver } from './receiver';
