import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookResponse } from '@svc-kit/webhooks';
import { type BodyLimitOptions, declaredLength, resolveMaxBodyBytes } from './body-limit';
import { matchesRoutePath } from './express-path';
import { createParsedBodyRefusal } from './parsed-body';
import type { WebhookReceiver } from './receiver';
import { bodyTooLarge } from './refusal';

export interface ExpressWebhookOptions extends BodyLimitOptions {
  /**
   * Answer only requests to this path (as Express sees it, so relative to the mount point) and pass every
   * other request to `next()`. Matched as `app.post(path, …)` would: a trailing slash and any case are
   * accepted unless the app sets `strict routing` / `case sensitive routing`. Leave it out when the
   * middleware is mounted on its own route.
   */
  readonly path?: string;
}

/** An Express (4 or 5) or Connect middleware; it also runs on a bare `node:http` request. */
export type WebhookMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/** What body parsers leave on the request. */
interface ParsedRequest {
  body?: unknown;
  /** Set by body-parser (Express 4 and 5) once it has read the stream. */
  _body?: unknown;
}

const PARSER_RAN_FIRST =
  'A body parser already read this request (express.json() or express.text() ran first), so the signed ' +
  'bytes are lost. Mount webhookMiddleware before app.use(express.json()), or on a route of its own ' +
  'with no parser; express.raw() in front of it is fine.';

const TOO_LARGE = Symbol('too large');
type ReadOutcome = Uint8Array | 'parsed' | typeof TOO_LARGE;

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
  const maxBodyBytes = resolveMaxBodyBytes(options);
  const refuseParsedBody = createParsedBodyRefusal(webhooks, PARSER_RAN_FIRST);

  async function respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await takeRawBody(req, maxBodyBytes);
    if (body === TOO_LARGE) {
      // The rest of the upload is discarded, not buffered; closing stops a sender that keeps streaming.
      return send(res, bodyTooLarge(maxBodyBytes), { connection: 'close' });
    }
    if (body === 'parsed') return send(res, await refuseParsedBody({ headers: req.headers }));
    send(res, await webhooks.handle({ body, headers: req.headers, method: req.method }));
  }

  return (req, res, next) => {
    if (options.path !== undefined && !matchesRoutePath(req, options.path)) {
      next();
      return;
    }
    respond(req, res).catch(next);
  };
}

/** The raw body: left by `express.raw()`, or read from the stream here; or why there is none. */
function takeRawBody(req: IncomingMessage, maxBodyBytes: number): Promise<ReadOutcome> | ReadOutcome {
  const { body, _body: parserRan } = req as ParsedRequest;
  if (body instanceof Uint8Array) return body.length > maxBodyBytes ? TOO_LARGE : body;
  const streamRead = parserRan === true || req.readableEnded || req.readableDidRead;
  if (body === undefined) return streamRead ? 'parsed' : readStream(req, maxBodyBytes);
  // body-parser 1 (Express 4) sets `req.body = {}` even when it skips a request of another content type.
  const skippedPlaceholder =
    typeof body === 'object' && body !== null && !streamRead && Object.keys(body).length === 0;
  return skippedPlaceholder ? readStream(req, maxBodyBytes) : 'parsed';
}

/** Reads the stream up to the limit. Past it, stops keeping bytes and lets the rest drain away. */
function readStream(req: IncomingMessage, maxBodyBytes: number): Promise<ReadOutcome> {
  const declared = declaredLength(req.headers['content-length']);
  if (declared !== undefined && declared > maxBodyBytes) {
    req.resume();
    return Promise.resolve(TOO_LARGE);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBodyBytes) {
        stop();
        req.resume();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      reject(new Error('The request was aborted before its body was complete.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function send(res: ServerResponse, response: WebhookResponse, extraHeaders?: Record<string, string>): void {
  // Something else (a timeout middleware) already answered: nothing sensible is left to send.
  if (res.headersSent) return;
  res.statusCode = response.status;
  for (const [name, value] of Object.entries({ ...response.headers, ...extraHeaders }))
    res.setHeader(name, value);
  res.end(response.body);
}

// Named in this adapter's signatures, so documented and importable from here.
export type { BodyLimitOptions } from './body-limit';
export type { WebhookReceiver } from './receiver';
