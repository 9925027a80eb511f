import { type ErrorCode, statusOfErrorCode } from '@svc-kit/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimitedError, type ServiceError } from '../domain/errors.js';
import type { PeerRefusal } from '../peer/refusal.js';
import { DatabaseUnavailableError } from '../store/db.js';
import { ReplayedRefusal } from '../store/idempotent.js';

/**
 * The spec's error body with the status its code carries; a 429 also says when to retry (`retry_after` and
 * `Retry-After`, spec part 7). The peer protocol's refusals use it with codes of their own.
 */
function sendBody(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  error: { code: string; message: string },
  retryAfter?: number,
) {
  const body = { code: error.code, message: error.message, request_id: request.id };
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
  return reply
    .code(status)
    .type('application/json')
    .send({ error: retryAfter === undefined ? body : { ...body, retry_after: retryAfter } });
}

export function sendError(request: FastifyRequest, reply: FastifyReply, code: ErrorCode, message: string) {
  return sendBody(request, reply, statusOfErrorCode(code), { code, message });
}

/** A refusal of the service; a 429 (RateLimitedError) also says when to retry, a ReplayedRefusal that it is one. */
export function sendServiceError(request: FastifyRequest, reply: FastifyReply, error: ServiceError) {
  if (error instanceof ReplayedRefusal) reply.header('Idempotent-Replayed', 'true');
  const wait = error instanceof RateLimitedError ? error.retryAfterSeconds : undefined;
  return sendBody(request, reply, statusOfErrorCode(error.code), error, wait);
}

/** A refusal of the peer protocol (`/peer/v1`): its own codes, the status its code carries, the same body. */
export function sendPeerRefusal(request: FastifyRequest, reply: FastifyReply, refusal: PeerRefusal) {
  return sendBody(request, reply, refusal.status, refusal, refusal.retryAfterSeconds);
}

/** The message of a 500: nothing of the failure itself, which stays in the log under the request id. */
const INTERNAL_MESSAGE = 'the service failed; quote the request id when reporting it';

/** When a caller answered 503 because of the database is told to try again, in seconds. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * An error no feature turned into a refusal: 503 `service_unavailable` with `Retry-After` when the database
 * did not serve the request (no connection in time, a statement cut short, no space, reopening: a warning,
 * not a fault here), else 500 `internal_error`, logged and answered without a word of the failure.
 */
export function sendFailure(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  failed = { log: 'request failed', message: INTERNAL_MESSAGE },
) {
  if (error instanceof DatabaseUnavailableError) {
    request.log.warn({ err: error }, 'the database is unavailable');
    reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
    return sendError(
      request,
      reply,
      'service_unavailable',
      'the database is busy, out of reach or out of space and did not serve this request; retry in a moment',
    );
  }
  request.log.error({ err: error }, failed.log);
  return sendError(request, reply, 'internal_error', failed.message);
}
