import { type ErrorCode, statusOfErrorCode } from '@svc-kit/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimitedError, type ServiceError } from '../domain/errors.js';
import type { PeerRefusal } from '../peer/refusal.js';
import { DatabaseUnavailableError } from '../store/db.js';

/** Every code the service answers is in the contract's registry, which also fixes its status. */
export function statusOf(code: ErrorCode): number {
  return statusOfErrorCode(code);
}

/** The spec's error body. The peer protocol's refusals have codes of their own, in the same body. */
export function errorBody<C extends string = ErrorCode>(request: FastifyRequest, code: C, message: string) {
  return { error: { code, message, request_id: request.id } };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, code: ErrorCode, message: string) {
  return reply
    .code(statusOf(code))
    .type('application/json')
    .send(errorBody(request, code, message));
}

/** A refusal of the service; a 429 also says when to retry, in the body and in `Retry-After` (spec part 7). */
export function sendServiceError(request: FastifyRequest, reply: FastifyReply, error: ServiceError) {
  if (!(error instanceof RateLimitedError)) return sendError(request, reply, error.code, error.message);
  const body = errorBody(request, error.code, error.message);
  return reply
    .code(statusOf(error.code))
    .header('retry-after', String(error.retryAfterSeconds))
    .type('application/json')
    .send({ error: { ...body.error, retry_after: error.retryAfterSeconds } });
}

/** A refusal of the peer protocol (`/peer/v1`): its own codes, the status its code carries, the same body. */
export function sendPeerRefusal(request: FastifyRequest, reply: FastifyReply, refusal: PeerRefusal) {
  const body = errorBody(request, refusal.code, refusal.message);
  const wait = refusal.retryAfterSeconds;
  if (wait === undefined) return reply.code(refusal.status).type('application/json').send(body);
  return reply
    .code(refusal.status)
    .header('retry-after', String(wait))
    .type('application/json')
    .send({ error: { ...body.error, retry_after: wait } });
}

/** The message of a 500: nothing of the failure itself, which stays in the log under the request id. */
export const INTERNAL_MESSAGE = 'the service failed; quote the request id when reporting it';

/** When a caller answered 503 because of the database is told to try again, in seconds. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * An error no feature turned into a refusal: 503 `service_unavailable` with `Retry-After` when the
 * database gave the request no connection in time, cut its statement short, has no space left to write
 * or is being opened again (a warning: the database's state, not a fault here), else 500 `internal_error`.
 */
export function sendFailure(
  request: FastifyRequest,
  reply: FastifyReply,
  error: unknown,
  failed: { log: string; message: string },
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
