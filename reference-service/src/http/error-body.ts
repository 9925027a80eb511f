import { ERROR_CODES, type ErrorCode } from '@svc-kit/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Every code the service answers is in the contract's registry, which also fixes its status. */
export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

export function errorBody(request: FastifyRequest, code: ErrorCode, message: string) {
  return { error: { code, message, request_id: request.id } };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, code: ErrorCode, message: string) {
  return reply
    .code(statusOf(code))
    .type('application/json')
    .send(errorBody(request, code, message));
}
