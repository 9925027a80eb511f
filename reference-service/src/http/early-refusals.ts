import { randomUUID } from 'node:crypto';
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { type ErrorCode, ID_PREFIXES, statusOfErrorCode } from '@svc-kit/contract';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../domain/errors.js';
import { holdsNul } from '../domain/storable-text.js';
import { ANSWER_HEADERS } from './answer-headers.js';
import { sendError, sendFailure, sendServiceError } from './error-body.js';
import { NUL_MESSAGE } from './hostile-input.js';
import { authorize, type Requirements } from './policy.js';

/**
 * Refusals decided before a route's handler runs (an unreadable body, path or request, a NUL in the path
 * or query), with the error body and a request id. On authenticated routes the route's policy is answered
 * first (this folder's README): a stranger learns nothing about what it sent.
 */

// From randomUUID, whose entropy Node draws in batches: randomBytes asked OpenSSL (and the kernel) each time.
export const newRequestId = () => `${ID_PREFIXES.request}_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

/** What a route asks of its caller, set as route config by registerOperations. */
export interface RouteRequirements {
  requirements?: Requirements;
  /** Taken without a credential (sign-up, accepting an invite): bad input is answered as such, never 401. */
  publicRoute?: boolean;
}

const AUTHENTICATED: Requirements = { stepUp: false, suspended: false };

/** The policy a request must pass before it is told what was wrong with its input; none for public routes. */
function requirementsOf(request: FastifyRequest): Requirements | undefined {
  let configured: Requirements | undefined;
  try {
    const config = request.routeOptions.config as RouteRequirements | undefined;
    if (config?.publicRoute) return undefined;
    configured = config?.requirements;
  } catch {
    // A request refused before routing has no route options.
  }
  if (configured) return configured;
  const path = request.url.split('?', 1)[0] ?? '';
  const publicV1 = path === '/v1/openapi.json' || (request.method === 'POST' && path === '/v1/sessions');
  if (path.startsWith('/v1/') && !publicV1) return AUTHENTICATED;
  if (path.startsWith('/sandbox/')) return AUTHENTICATED;
  return undefined;
}

/** Answers a 400 about the input, unless the caller is refused first (401, or the route's 403s). */
export async function refuseInput(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  message: string,
): Promise<FastifyReply> {
  const requirements = requirementsOf(request);
  if (requirements) {
    try {
      await authorize(ctx, request, requirements);
    } catch (error) {
      // A 429 of the sign-in limits keeps its `retry_after` and `Retry-After` (sendServiceError).
      if (error instanceof ServiceError) return sendServiceError(request, reply, error);
      // Never thrown on: this runs inside error handlers, whose own failures would leave Fastify's body.
      return sendFailure(request, reply, error);
    }
  }
  return sendError(request, reply, 'invalid_request', message);
}

const UNREADABLE: Readonly<Record<string, string>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'the body must be sent as application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'the body does not match its Content-Length',
  FST_ERR_BAD_URL: 'the path is not valid percent-encoded UTF-8',
  FST_ERR_MAX_PARAM_LENGTH: 'a path parameter is longer than the service accepts',
};

/** Our words for Fastify's refusals of a request it could not read. */
export function unreadableMessage(error: FastifyError, bodyLimit: number): string {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return `the body is larger than ${bodyLimit} bytes`;
  return UNREADABLE[error.code] ?? 'the request could not be read';
}

/** Fastify's `frameworkErrors` (an undecodable path, an over-long parameter): no hook set the headers. */
export function frameworkErrorsHandler(ctx: ServiceContext, bodyLimit: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    reply.headers(ANSWER_HEADERS);
    void refuseInput(ctx, request, reply, unreadableMessage(error, bodyLimit));
  };
}

/** A NUL in the path or query (a body's is found by the JSON parser): refused before the handler. */
export function nulInPathOrQuery(ctx: ServiceContext) {
  // A callback hook (an async one costs a promise per request); one that answers does not call `done`.
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
    // Fast path: a NUL can only arrive percent-encoded (the HTTP parser refuses a raw one).
    if (!request.url.includes('%00') || !(holdsNul(request.params) || holdsNul(request.query))) {
      done();
      return;
    }
    refuseInput(ctx, request, reply, NUL_MESSAGE).catch(done);
  };
}

/** HTTP/1.1 requires Host (RFC 9112, 3.2); Node's own refusal has no body, so the check is made here. */
export function requireHost(request: FastifyRequest, reply: FastifyReply, done: () => void) {
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
    sendError(request, reply, 'invalid_request', 'an HTTP/1.1 request must carry a Host header');
    return;
  }
  done();
}

/** The headers every answer carries, as lines of a response written on the raw socket. */
const RAW_ANSWER_HEADERS = Object.entries(ANSWER_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

/**
 * Node's `clientError`: what the HTTP parser refuses before Fastify sees it (a garbage request line or
 * header, conflicting framing headers, headers over the limit, a request late or broken in its chunks).
 * Answered with the error body and a request id the log line carries too, then the connection is closed:
 * after a framing error nothing else on it can be trusted.
 */
export function clientErrorHandler(log: FastifyBaseLogger) {
  return (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const requestId = newRequestId();
    const [code, message]: [ErrorCode, string] =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', 'the request was not received in full in time']
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? ['headers_too_large', 'the request headers are too large']
          : ['invalid_request', 'the request is not well-formed HTTP/1.1'];
    // Written on the raw socket, but with the status the contract gives the code, as every other refusal.
    const status = statusOfErrorCode(code);
    const reason = STATUS_CODES[status] ?? 'Error';
    log.info({ reqId: requestId, parserError: error.code, status }, 'unreadable request refused');
    const refuse = (write: boolean) => {
      if (write && socket.writable) {
        const body = JSON.stringify({ error: { code, message, request_id: requestId } });
        socket.write(
          `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\n` +
            `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\n${RAW_ANSWER_HEADERS}` +
            `connection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy();
    };
    const answering = (socket as { _httpMessage?: ServerResponse | null })._httpMessage;
    // A request read in full before the bytes that broke the framing is answered first (it may have changed
    // something, and its caller would never know), reading nothing more meanwhile; one cut short is not.
    if (answering?.req.complete === true) {
      socket.pause();
      answering.once('close', () => refuse(true));
      return;
    }
    // Never in the middle of another answer (Node detaches a finished one). An answer not begun yet is this
    // request's own: a body that broke the framing (a chunk size that is not hexadecimal) or never arrived
    // in full before the request deadline gets the refusal.
    refuse(answering === null || answering === undefined || !answering.headersSent);
  };
}
