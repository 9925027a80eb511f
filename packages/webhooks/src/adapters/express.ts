import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BodyLimitOptions, resolveMaxBodyBytes } from './body-limit';
import { matchesRoutePath } from './express-path';
import { createNodeResponder } from './node-body';
import type { WebhookReceiver } from './receiver';

export interface ExpressWebhookOptions extends BodyLimitOptions {
  /**
   * Answer only requests to this path (as Express sees it, so relative to the mount point) and pass every
   * other request to `next()`. Matched as `app.post(path, …)` would: a trailing slash and any case are
   * accepted unless the app sets `strict routing` / `case sensitive routing`. Leave it out when the
   * middleware is mounted on its own route.
   */
  readonly path?: string;
}

/** An Express (4 or 5) or Connect middleware. On a bare `node:http` server, use `createNodeHandler`. */
export type WebhookMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

const PARSER_RAN_FIRST =
  'A body parser already read this request (express.json() or express.text() ran first), so the signed ' +
  'bytes are lost. Mount webhookMiddleware before app.use(express.json()), or on a route of its own ' +
  'with no parser; express.raw() in front of it is fine.';

/**
 * Receives deliveries in Express 5 or 4 (or Connect): reads the raw body from the request stream itself,
 * so no body parser is needed, hands it to `webhooks.handle()` and sends back its answer.
 *
 * Mount it before any JSON parser: `app.post('/webhooks', webhookMiddleware(webhooks))`. If a parser did
 * run first, every delivery is refused with `body_was_parsed` and a message saying how to fix the order
 * (a Buffer left by `express.raw()` is used as is).
 */
export function webhookMiddleware(
  webhooks: WebhookReceiver,
  options: ExpressWebhookOptions = {},
): WebhookMiddleware {
  const respond = createNodeResponder(webhooks, resolveMaxBodyBytes(options), PARSER_RAN_FIRST);

  return (req, res, next) => {
    if (options.path !== undefined && !matchesRoutePath(req, options.path)) {
      next();
      return;
    }
    // Never rejects (an aborted upload included), so `next` is needed only for other paths.
    void respond(req, res);
  };
}

// Named in this adapter's signatures, so documented and importable from here.
export type { BodyLimitOptions } from './body-limit';
export type { WebhookReceiver } from './receiver';
