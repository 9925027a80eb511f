import { buildOpenApiDocument, type Operation } from '@svc-kit/contract';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../domain/errors.js';
import { AccessLogController } from '../ops/access-log.js';
import { whenClientGone } from '../ops/client-gone.js';
import { type Readiness, registerHealthRoutes } from '../ops/health.js';
import type { ServiceMetrics } from '../ops/metrics.js';
import { recordRequestMetrics } from '../ops/request-metrics.js';
import { registerAnswerHeaders } from './answer-headers.js';
import { registerConditionalGet } from './conditional-get.js';
import { CONNECTIONS_CHECK_MS, guardConnections } from './connection-guard.js';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from './connection-limits.js';
import { endConnectionsAsTheyGoIdle } from './drain.js';
import {
  clientErrorHandler,
  frameworkErrorsHandler,
  newRequestId,
  nulInPathOrQuery,
  refuseInput,
  requireHost,
  unreadableMessage,
} from './early-refusals.js';
import { sendError, sendFailure, sendServiceError } from './error-body.js';
import { parseJsonBody, UnreadableBody } from './hostile-input.js';
import { requestLogger } from './logger.js';

/**
 * Four times the largest body of the contract but one (a contact card, 16 KiB): a stranger's body is read
 * before any credential is, so its size is what a request without an account costs. The one larger body,
 * setExposure's, has a limit of its own (`BODY_LIMITS`, operations.ts).
 */
const BODY_LIMIT = 64 * 1024;

export interface HttpOptions {
  logger: Logger;
  /** Every operation served, for the metrics' route labels. */
  operations: Readonly<Record<string, Operation>>;
  /** Proxies whose `X-Forwarded-For` names the client address (SVC_TRUSTED_PROXIES); none by default. */
  trustedProxies?: readonly string[] | undefined;
  /** Deadlines and caps of the connections (SVC_REQUEST_TIMEOUT_MS and others); unset: the defaults. */
  connections?: ConnectionLimits | undefined;
  /** Serve `/healthz` and `/readyz` (see ops/health.ts). */
  readiness?: Readiness | undefined;
  /** Count and time every answer (served on a port of its own, see ops/metrics-server.ts). */
  metrics?: ServiceMetrics | undefined;
}

/**
 * The HTTP server every surface is registered on: hostile-input handling, request ids, the one error
 * handler that turns every failure into the spec's error body, health, metrics and the OpenAPI document.
 */
export async function createHttpApp(ctx: ServiceContext, options: HttpOptions): Promise<FastifyInstance> {
  const logger = options.logger as FastifyBaseLogger;
  const accessLog = new AccessLogController(options.logger);
  const app = Fastify({
    // A pino logger is a FastifyBaseLogger; naming the base type keeps the instance's type the default one.
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT,
    // Our own ids, never taken from the caller: the id in an error body must match our logs.
    requestIdHeader: false,
    genReqId: newRequestId,
    // Every refusal leaves with the error body, including those made before a route is found...
    frameworkErrors: frameworkErrorsHandler(ctx, BODY_LIMIT),
    // ...and those of Node's HTTP parser, which Fastify never sees.
    clientErrorHandler: clientErrorHandler(logger),
    // Node's own missing-Host refusal has an empty body: the onRequest hook below answers it instead.
    http: { requireHostHeader: false, connectionsCheckingInterval: CONNECTIONS_CHECK_MS },
    // Requests arriving while the server drains are served (Fastify's own 503 has another body).
    return503OnClosing: false,
    // Only `request.ip` follows it (the sign-in limits); the public URL and origin never come from a request.
    trustProxy: options.trustedProxies?.length ? [...options.trustedProxies] : false,
    logController: accessLog,
    childLoggerFactory: requestLogger,
  });

  endConnectionsAsTheyGoIdle(app);
  guardConnections(
    app.server,
    options.connections ?? DEFAULT_CONNECTION_LIMITS,
    options.trustedProxies ?? [],
    logger,
  );

  // An empty body with a JSON content type means "no body" (some clients send the header on DELETE).
  app.removeContentTypeParser('application/json');
  // Fastify passes what the parser throws to `done`.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) =>
    done(null, parseJsonBody(String(text))),
  );

  registerAnswerHeaders(app);
  app.addHook('onRequest', requireHost);
  registerConditionalGet(app);
  app.addHook('preHandler', nulInPathOrQuery(ctx));
  const requestMetrics = options.metrics
    ? recordRequestMetrics(app, options.metrics, options.operations)
    : undefined;
  whenClientGone(app, (request, reply) => {
    accessLog.requestAborted(request, reply);
    requestMetrics?.aborted(request, reply);
  });
  if (options.readiness) await registerHealthRoutes(app, ctx.db, options.readiness);

  app.setErrorHandler(async (error: FastifyError | ServiceError, request, reply) => {
    // Raised before the handler ran (the body parser, Fastify's body reading): the caller is checked first.
    if (error instanceof UnreadableBody) return refuseInput(ctx, request, reply, error.message);
    if (error instanceof ServiceError) return sendServiceError(request, reply, error);
    const status = (error as FastifyError).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      // Fastify's own refusals (unsupported media type, body too large): arguments did not validate.
      const bodyLimit = request.routeOptions.bodyLimit ?? BODY_LIMIT;
      return refuseInput(ctx, request, reply, unreadableMessage(error as FastifyError, bodyLimit));
    }
    return sendFailure(request, reply, error);
  });

  app.setNotFoundHandler((request, reply) => sendError(request, reply, 'not_found', 'no such route'));

  const openApi = buildOpenApiDocument();
  app.get('/v1/openapi.json', async () => openApi);
  return app;
}
