import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookResponse } from '@svc-kit/webhooks';
import { declaredLength } from './body-limit';
import { createParsedBodyRefusal } from './parsed-body';
import type { WebhookReceiver } from './receiver';
import { bodyIncomplete, bodyTooLarge } from './refusal';

/** What body parsers leave on the request (Express's body-parser, koa-bodyparser). */
interface ParsedRequest {
  body?: unknown;
  /** Set by body-parser (Express 4 and 5) once it has read the stream. */
  _body?: unknown;
}

const TOO_LARGE = Symbol('too large');
const ABORTED = Symbol('aborted');
type ReadOutcome = Uint8Array | 'parsed' | typeof TOO_LARGE | typeof ABORTED;

/**
 * Answers one `node:http` request with `webhooks.handle()`, reading the raw body itself. The promise never
 * rejects: a client that goes away mid-upload, or any other failure, ends in an answer (or a closed
 * socket), never in an unhandled rejection that would bring the process down.
 */
export function createNodeResponder(
  webhooks: WebhookReceiver,
  maxBodyBytes: number,
  parsedBodyFix: string,
): (req: IncomingMessage, res: ServerResponse, leftBody?: unknown) => Promise<void> {
  const refuseParsedBody = createParsedBodyRefusal(webhooks, parsedBodyFix);
  async function answer(
    req: IncomingMessage,
    leftBody: unknown,
  ): Promise<[WebhookResponse, Record<string, string>?]> {
    const body = await takeRawBody(req, leftBody, maxBodyBytes);
    // The rest of an oversized upload is discarded, not buffered; closing stops a sender that keeps streaming.
    if (body === TOO_LARGE) return [bodyTooLarge(maxBodyBytes), { connection: 'close' }];
    if (body === ABORTED) return [bodyIncomplete(), { connection: 'close' }];
    if (body === 'parsed') return [await refuseParsedBody({ headers: req.headers })];
    return [await webhooks.handle({ body, headers: req.headers, method: req.method })];
  }
  // `leftBody`: what a body parser left, where the framework keeps it (Express: `req.body`).
  return async (req, res, leftBody = (req as ParsedRequest).body) => {
    try {
      const [response, extraHeaders] = await answer(req, leftBody);
      send(res, response, extraHeaders);
    } catch {
      // `handle()` never throws, so only the transport can fail here; the client is gone or the socket broken.
      if (!res.headersSent) res.statusCode = 500;
      res.destroy();
    }
  };
}

/** The raw body: left by `express.raw()`, or read from the stream here; or why there is none. */
function takeRawBody(
  req: IncomingMessage,
  body: unknown,
  maxBodyBytes: number,
): Promise<ReadOutcome> | ReadOutcome {
  if (body instanceof Uint8Array) return body.length > maxBodyBytes ? TOO_LARGE : body;
  const streamRead = (req as ParsedRequest)._body === true || req.readableEnded || req.readableDidRead;
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
  if (req.destroyed) return Promise.resolve(ABORTED);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: ReadOutcome) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onStop);
      req.off('close', onStop);
      resolve(outcome);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBodyBytes) {
        req.resume();
        finish(TOO_LARGE);
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => finish(Buffer.concat(chunks, size));
    // An error or a close before `end` means the client aborted the upload: there is no delivery to check.
    const onStop = () => finish(ABORTED);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onStop);
    req.on('close', onStop);
  });
}

function send(res: ServerResponse, response: WebhookResponse, extraHeaders?: Record<string, string>): void {
  // Something else (a timeout middleware) already answered, or the client is gone: nothing is left to send.
  if (res.headersSent || res.destroyed) return;
  res.statusCode = response.status;
  for (const [name, value] of Object.entries({ ...response.headers, ...extraHeaders }))
    res.setHeader(name, value);
  res.end(response.body);
}
