import type { WebhookResponse } from '@svc-kit/webhooks';
import { type BodyLimitOptions, declaredLength, resolveMaxBodyBytes } from './body-limit';
import { createParsedBodyRefusal } from './parsed-body';
import type { WebhookReceiver } from './receiver';
import { bodyIncomplete, bodyTooLarge } from './refusal';

export type FetchHandlerOptions = BodyLimitOptions;

/** A Web-standard handler: Next.js App Router, Hono (`c.req.raw`), Bun, Deno, Cloudflare Workers. */
export type FetchHandler = (request: Request) => Promise<Response>;

const BODY_ALREADY_READ =
  "This request's body was already read (request.json(), request.text() or a framework body parser ran " +
  'first), so the signed bytes are lost. Pass the untouched Request to the webhook handler (in Hono: ' +
  'handler(c.req.raw) before any c.req.json()).';

const TOO_LARGE = Symbol('too large');
const ABORTED = Symbol('aborted');

// Statuses whose Response must have a null body (the constructor throws otherwise).
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * Receives deliveries as a `(request: Request) => Promise<Response>` function. Uses only Web APIs, so it
 * runs on every runtime with `Request`/`Response`: reads the raw body (bounded by `maxBodyBytes`), hands it
 * to `webhooks.handle()` and turns its answer into a `Response`.
 */
export function createFetchHandler(
  webhooks: WebhookReceiver,
  options: FetchHandlerOptions = {},
): FetchHandler {
  const maxBodyBytes = resolveMaxBodyBytes(options);
  const refuseUsedBody = createParsedBodyRefusal(webhooks, BODY_ALREADY_READ);

  return async (request) => {
    if (request.bodyUsed) return toResponse(await refuseUsedBody({ headers: request.headers }));
    const body = await readBody(request, maxBodyBytes);
    if (body === TOO_LARGE) return toResponse(bodyTooLarge(maxBodyBytes));
    if (body === ABORTED) return toResponse(bodyIncomplete());
    return toResponse(await webhooks.handle({ body, headers: request.headers, method: request.method }));
  };
}

/**
 * Reads the body chunk by chunk, so a body longer than announced (or sent without a length) is cut off at
 * the limit instead of being buffered whole as `arrayBuffer()` would.
 */
async function readBody(
  request: Request,
  maxBodyBytes: number,
): Promise<Uint8Array | typeof TOO_LARGE | typeof ABORTED> {
  const declared = declaredLength(request.headers.get('content-length'));
  if (declared !== undefined && declared > maxBodyBytes) {
    await request.body?.cancel().catch(() => {});
    return TOO_LARGE;
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    // A body stream that errors is a client that went away mid-upload: answered, never thrown.
    const chunk = await reader.read().catch(() => undefined);
    if (chunk === undefined) return ABORTED;
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > maxBodyBytes) {
      await reader.cancel().catch(() => {});
      return TOO_LARGE;
    }
    chunks.push(value);
  }
  return concat(chunks, size);
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function toResponse(response: WebhookResponse): Response {
  const body = NULL_BODY_STATUSES.has(response.status) ? null : response.body;
  return new Response(body, { status: response.status, headers: response.headers });
}

// Named in this adapter's signatures, so documented and importable from here.
export type { BodyLimitOptions } from './body-limit';
export type { WebhookReceiver } from './receiver';
