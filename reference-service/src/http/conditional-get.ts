import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Conditional GETs for /v1 reads: every 200 answer gets a strong `ETag` (a hash of the exact body), and a
 * request whose `If-None-Match` names it gets `304 Not Modified` without the body. The portal's live
 * delivery log polls with it, so an unchanged log costs a few headers (docs/guide/open-choices.md).
 * `Cache-Control: private, no-cache` keeps shared caches out and makes the browser ask every time.
 */
export function registerConditionalGet(app: FastifyInstance): void {
  // A callback hook: it runs on every answer, and an async one costs a promise and a microtask each time.
  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    done(null, conditional(request, reply, payload));
  });
}

function conditional(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (request.method !== 'GET' || !request.url.startsWith('/v1/') || reply.statusCode !== 200) return payload;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
  // Encoded once: the bytes hashed are the bytes sent (a string would be encoded again to be written).
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const etag = `"${hash('sha256', body, 'base64url').slice(0, 27)}"`;
  reply.header('etag', etag);
  reply.header('cache-control', 'private, no-cache');
  if (!matches(request.headers['if-none-match'], etag)) return body;
  reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  // No payload at all: Fastify would write `content-length: 0` for an empty string, which a 304 must not
  // carry (RFC 9110 8.6: it would stand for the length of the 200).
  return null;
}

/** `If-None-Match` holds a list of tags (weak ones compare too, RFC 9110 13.1.2) or `*`. */
function matches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const bare = tag.trim().replace(/^W\//, '');
    return bare === '*' || bare === etag;
  });
}
