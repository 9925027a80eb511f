import { WebhookVerificationError } from '../errors';

/** The body exactly as received: text, bytes (a Node `Buffer` is a `Uint8Array`), or an `ArrayBuffer`. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** A raw body reduced to the two forms the HMAC code reads. */
export type BodyInput = string | Uint8Array;

const RAW_BODY_HOWTO =
  "Pass the raw body: express.raw({ type: 'application/json' }), a Fastify content-type parser with " +
  "parseAs: 'buffer', or await request.text() in fetch runtimes (the @svc-kit/webhooks/express, /fastify " +
  'and /fetch adapters do this for you).';

function describeNonRaw(body: unknown): string {
  if (body === undefined || body === null) {
    return `The body is ${body}: no raw body reached the SDK (no body parser ran, or it ran after this code).`;
  }
  if (typeof body === 'object') {
    const candidate = body as { pipe?: unknown; getReader?: unknown; arrayBuffer?: unknown };
    if (typeof candidate.pipe === 'function' || typeof candidate.getReader === 'function') {
      return 'The body is a stream: read it to the end first and pass the bytes.';
    }
    if (typeof candidate.arrayBuffer === 'function') {
      return 'The body is a Request/Response/Blob: pass await request.text() (or arrayBuffer()) instead.';
    }
    return (
      'The body is already-parsed JSON (an object), so the bytes that were signed are lost: re-serialising ' +
      'never reproduces them exactly.'
    );
  }
  return `The body is a ${typeof body}, so it was parsed from JSON before verification and the signed bytes are lost.`;
}

// Checked by tag as well, so buffers from another realm (vm, iframes, test environments) are accepted.
function isArrayBuffer(value: unknown): value is ArrayBuffer {
  return (
    value instanceof ArrayBuffer ||
    (typeof value === 'object' &&
      value !== null &&
      Object.prototype.toString.call(value) === '[object ArrayBuffer]')
  );
}

/**
 * Accepts only a raw body. Anything else (an object from express.json(), a stream, undefined) is refused
 * with `body_was_parsed` and a message saying how to get the raw body in common frameworks.
 */
export function toBodyInput(body: unknown): BodyInput {
  try {
    if (typeof body === 'string') return body;
    if (ArrayBuffer.isView(body)) {
      return body instanceof Uint8Array
        ? body
        : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    }
    if (isArrayBuffer(body)) return new Uint8Array(body);
  } catch {
    // Only a hostile object (a proxy whose traps throw) lands here; it is not a raw body either way.
  }
  let description: string;
  try {
    description = describeNonRaw(body);
  } catch {
    description = 'The body is not raw text or bytes.';
  }
  throw new WebhookVerificationError('body_was_parsed', `${description} ${RAW_BODY_HOWTO}`);
}
