import pino, { type Logger, type LoggerOptions } from 'pino';
import { loggableUrl } from '../ops/access-log.js';

/**
 * Structured JSON logs. Fastify adds `reqId` (the same id as `error.request_id`) to every line logged for a
 * request. Credentials never reach a log line: headers that carry them and any field named like a secret
 * are censored, wherever they appear.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'secret',
  'password',
  'token',
  'key',
  '*.secret',
  '*.password',
  '*.token',
  '*.key',
  '*.secret_enc',
  '*.previous_secret_enc',
  '*.mfa_secret_enc',
  '*.password_hash',
  '*.secret_hash',
];

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Fastify's own lines that carry the request (an error its handler could not answer, an answer that
    // could not be written) show its URL censored as the access line's is; Fastify's child loggers keep
    // the service's serializers over its own.
    serializers: { req: loggableRequest },
  };
}

interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
  /** Set when the request was summarised already (the access line's fields). */
  remoteAddress?: string;
  host?: string;
  socket?: { remotePort?: number };
}

function loggableRequest(request: LoggedRequest) {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? loggableUrl(request.url) : undefined,
    host: request.host,
    remoteAddress: request.ip ?? request.remoteAddress,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * The service's logger: JSON lines to stdout, gathered and written together once 4 KiB are waiting or
 * 100 ms have passed, on this thread; pino flushes what is left when the process exits. A write per line
 * cost a system call per request, and written asynchronously also a hand-over to libuv's thread pool and
 * back: together more than the database's share of a fast read (counted with `strace -c`, see
 * bench/RESULTS.md).
 */
export function createServiceLogger(level: string): Logger {
  return pino(
    loggerOptions(level),
    pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: 100 }),
  );
}
