import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BodyLimitOptions, resolveMaxBodyBytes } from './body-limit';
import { createNodeResponder } from './node-body';
import type { WebhookReceiver } from './receiver';

export interface KoaWebhookOptions extends BodyLimitOptions {
  /** Answer only requests to this path (`ctx.path`, exactly) and pass the others to `next()`. */
  readonly path?: string;
}

/** The part of a Koa (2 or 3) context the middleware uses; typed here so Koa's types are not needed. */
export interface KoaContextLike {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly path: string;
  readonly request: { readonly body?: unknown };
  respond?: boolean;
}

export type KoaWebhookMiddleware = (ctx: KoaContextLike, next: () => Promise<unknown>) => Promise<void>;

const PARSER_RAN_FIRST =
  'A body parser (koa-bodyparser, @koa/bodyparser, koa-body) already read this request, so the signed ' +
  'bytes are lost. Use the webhook middleware before the body parser, or on a route of its own.';

/**
 * Receives deliveries in Koa: reads the raw body from `ctx.req` itself, hands it to `webhooks.handle()`
 * and writes its answer to `ctx.res` (with `ctx.respond = false`, so Koa leaves the response alone).
 *
 * `app.use(webhookMiddleware(webhooks, { path: '/webhooks' }))`, before any body parser.
 */
export function webhookMiddleware(
  webhooks: WebhookReceiver,
  options: KoaWebhookOptions = {},
): KoaWebhookMiddleware {
  const respond = createNodeResponder(webhooks, resolveMaxBodyBytes(options), PARSER_RAN_FIRST);
  return async (ctx, next) => {
    if (options.path !== undefined && ctx.path !== options.path) {
      await next();
      return;
    }
    ctx.respond = false;
    // Koa's parsers leave their result on ctx.request, not on the Node request.
    await respond(ctx.req, ctx.res, ctx.request.body);
  };
}

// Named in this adapter's signatures, so documented and importable from here.
export type { BodyLimitOptions } from './body-limit';
export type { WebhookReceiver } from './receiver';
