import type { FastifyBaseLogger } from 'fastify';
import pino, { type Bindings, type ChildLoggerOptions, type Logger, type LoggerOptions } from 'pino';
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

function loggableRequest(request: {
  method?: string;
  url?: string;
  ip?: string;
  /** Set when the request was summarised already (the access line's fields). */
  remoteAddress?: string;
  host?: string;
  socket?: { remotePort?: number };
}) {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? loggableUrl(request.url) : undefined,
    host: request.host,
    remoteAddress: request.ip ?? request.remoteAddress,
    remotePort: request.socket?.remotePort,
  };
}

/**
 * The process's logger (main.ts): JSON lines to stdout, written together once 4 KiB wait or 100 ms pass, on
 * this thread: a write per line (and asynchronous, a trip through libuv's pool) cost more than the
 * database's share of a fast read (bench/RESULTS.md). Pino flushes only an asynchronous destination at
 * exit, so this one is flushed here: the last lines (why a start or a shutdown failed) matter most.
 */
export function createServiceLogger(level: string): Logger {
  const destination = pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: 100 });
  process.once('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // stdout is gone: there is nowhere left to write.
    }
  });
  return pino(loggerOptions(level), destination);
}

/**
 * Fastify's logger for one request: the service's logger with its `reqId`, as pino's `child()` writes it
 * (test/ops/access-log.test.ts compares them), without `child()`'s redaction walk on every request
 * (bench/RESULTS.md, issue 43): a request id is the service's own. Other bindings or options get `child()`.
 */
export function requestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  const { reqId, ...others } = bindings;
  if (typeof reqId !== 'string' || Object.keys(others).length > 0 || Object.keys(options).length > 0) {
    return logger.child(bindings, options);
  }
  const held = logger as unknown as Record<symbol, string>;
  const child = Object.create(logger) as FastifyBaseLogger & Record<symbol, string>;
  child[pino.symbols.chindingsSym] =
    `${held[pino.symbols.chindingsSym] ?? ''},"reqId":${JSON.stringify(reqId)}`;
  return child;
}
