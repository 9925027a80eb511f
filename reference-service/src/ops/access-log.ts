import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino, { type Logger } from 'pino';

/**
 * Query parameters whose values are credentials (the OAuth callback's `code` and `state`, any token), by
 * the end of their name, whatever its case or separator (`apiKey`, `access_token`, `client-secret`).
 */
const SECRET_PARAMETER =
  /(code|state|token|key|secret|password|passwd|pwd|auth|authorization|session|invite|sig|signature|verifier|jwt|bearer|credentials?)$/i;

/**
 * Credentials by their shape, wherever they stand in the URL (a path segment, a parameter of any name),
 * percent-encoded separators included: the service's API keys and webhook secrets.
 */
const SECRET_VALUE = /svc(?:_|%5f)[0-9a-f]{16}(?:_|%5f)[0-9a-f]{64}|whsec(?:_|%5f)[A-Za-z0-9+/=_%-]+/gi;

/**
 * The words of a parameter's name as a reader would take them: decoded, split at brackets, dots and other
 * punctuation (`user[password]`, `auth.token`, `key[]`).
 */
function parameterWords(raw: string): string[] {
  let name = raw;
  try {
    name = decodeURIComponent(raw);
  } catch {}
  return name.split(/[^A-Za-z0-9_-]+/);
}

/**
 * One access line per request, written with the answer: Fastify's default writes two, which on a fast read
 * cost more than the database's share of it. It keeps the request id, method, URL, status and time.
 *
 * The line is the one pino writes for these fields (test/ops/access-log.test.ts compares them), written to
 * the logger's own destination, so it is ordered and flushed with every other line; through pino, its
 * object walk and redaction cost a share of a fast read (bench/RESULTS.md, issue 43), and the one field
 * that can carry a credential, the URL, is censored here. It assumes what createServiceLogger makes:
 * pino's default time, level numbers and message key, no `formatters` or `mixin`, one destination (a
 * `pino.multistream` would route the line by the previous line's level), bindings read once.
 */
export class AccessLogController extends LogController {
  readonly #write: (line: string) => void;
  /** `,"pid":…,"hostname":"…"` and any other bindings of the logger, as pino writes them. */
  readonly #bindings: string;
  readonly #level: number;
  constructor(logger: Logger) {
    super();
    const stream = (logger as unknown as Record<symbol, { write(line: string): unknown }>)[
      pino.symbols.streamSym
    ]!;
    this.#write = (line) => stream.write(line);
    this.#bindings = (logger as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? '';
    this.#level = logger.levels.values.info!;
  }
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    // A route's own level (`logLevel: 'warn'` on the OAuth callback) holds for this line too.
    if (this.isLogDisabled(request) || !(reply.log as Logger).isLevelEnabled('info')) return;
    if (error) {
      const req = { method: request.method, url: loggableUrl(request.url), remoteAddress: request.ip };
      const fields = { req, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime };
      reply.log.error({ ...fields, err: error }, 'request errored');
      return;
    }
    this.#line(request, reply, `"res":{"statusCode":${reply.statusCode}},`, 'request completed');
  }
  /** A request whose client left first (client-gone.ts): Fastify logs none; often the slowest requests. */
  requestAborted(request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request) || !(reply.log as Logger).isLevelEnabled('info')) return;
    this.#line(request, reply, '"aborted":true,', 'request aborted');
  }
  #line(request: FastifyRequest, reply: FastifyReply, outcome: string, msg: string): void {
    const req = { method: request.method, url: loggableUrl(request.url), remoteAddress: request.ip };
    this.#write(
      `{"level":${this.#level},"time":${Date.now()}${this.#bindings},"reqId":${JSON.stringify(request.id)},` +
        `"req":${JSON.stringify(req)},${outcome}` +
        `"responseTime":${JSON.stringify(reply.elapsedTime)},"msg":"${msg}"}\n`,
    );
  }
}

/**
 * The URL with the values of credential-like query parameters, anything after a `#` and anything shaped
 * like one of the service's credentials replaced. Nothing after a `#` is logged, whether it comes before
 * or after a query (a raw client may send the portal's `/#/invite/<token>` link as it is).
 */
export function loggableUrl(url: string): string {
  const start = url.search(/[?#]/);
  const path = url.slice(0, start < 0 ? url.length : start).replace(SECRET_VALUE, '[redacted]');
  if (start < 0) return path;
  if (url[start] === '#') return `${path}#[redacted]`;
  // A later `#` only ever starts a fragment a client should not have sent: none of it is logged.
  const fragmentAt = url.indexOf('#', start + 1);
  const query = url
    .slice(start + 1, fragmentAt < 0 ? url.length : fragmentAt)
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0]!;
      return parameterWords(name).some((word) => SECRET_PARAMETER.test(word)) ? `${name}=[redacted]` : pair;
    })
    .join('&')
    .replace(SECRET_VALUE, '[redacted]');
  return `${path}?${query}${fragmentAt < 0 ? '' : '#[redacted]'}`;
}
