import { randomBytes } from 'node:crypto';
import { buildOpenApiDocument, type Operation, operations } from '@svc-kit/contract';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { RateLimitedError } from '../domain/contacts/rate-limited.js';
import { ServiceError } from '../domain/errors.js';
import { registerOAuthCallback } from '../integrations/oauth-callback.js';
import { IntegrationService } from '../integrations/service.js';
import { type IntegrationSettings, integrationSettingsFromEnv } from '../integrations/settings.js';
import { AccessLogController } from '../ops/access-log.js';
import { type Readiness, registerHealthRoutes } from '../ops/health.js';
import type { ServiceMetrics } from '../ops/metrics.js';
import { recordRequestMetrics } from '../ops/request-metrics.js';
import { registerPeerRoutes } from '../peer/server.js';
import { type PeerSettings, peerSettingsFromEnv } from '../peer/settings.js';
import { registerSandboxRoutes } from '../sandbox/trigger.js';
import { sendError } from './error-body.js';
import { contactHandlers, sendRateLimited } from './handlers/contacts.js';
import { integrationHandlers } from './handlers/integrations.js';
import { webhookHandlers } from './handlers/webhooks.js';
import { type OperationHandler, registerOperations } from './operations.js';
import type { ServiceContext } from './service-context.js';
import { registerSessionRoutes } from './session-routes.js';

export interface AppOptions {
  logger: Logger;
  /** Extra operations and handlers (tests register a test-only idempotent operation this way). */
  extraOperations?: Readonly<Record<string, Operation>>;
  extraHandlers?: Readonly<Record<string, OperationHandler<Operation>>>;
  /** How contacts reach peers; read from the environment when left out (see peer/settings.ts). */
  peer?: PeerSettings;
  /** How integrations reach upstream MCP servers; from the environment when left out. */
  integrations?: IntegrationSettings;
  /** Serve the sandbox-only routes (`POST /sandbox/events`); never in production. */
  sandboxRoutes?: boolean;
  /** Serve `/healthz` and `/readyz` (see ops/health.ts). */
  readiness?: Readiness;
  /** Count and time every answer (served on a port of its own, see ops/metrics-server.ts). */
  metrics?: ServiceMetrics;
}

/** 1 MiB is far above any body of the contract (the largest, a contact card, is 16 KiB). */
const BODY_LIMIT = 1024 * 1024;

export async function buildApp(ctx: ServiceContext, options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    // A pino logger is a FastifyBaseLogger; naming the base type keeps the instance's type the default one.
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    // Our own ids, never taken from the caller: the id in an error body must match our logs.
    requestIdHeader: false,
    genReqId: () => `req_${randomBytes(12).toString('hex')}`,
    logController: new AccessLogController(),
  });

  // An empty body with a JSON content type means "no body" (some clients send the header on DELETE).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    const raw = typeof text === 'string' ? text : text.toString('utf8');
    if (raw.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(raw));
    } catch {
      done(new ServiceError('invalid_request', 'the body is not valid JSON'), undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  if (options.metrics)
    recordRequestMetrics(app, options.metrics, { ...operations, ...options.extraOperations });
  if (options.readiness) await registerHealthRoutes(app, ctx.db, options.readiness);

  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    if (error instanceof RateLimitedError) return sendRateLimited(request, reply, error);
    if (error instanceof ServiceError) return sendError(request, reply, error.code, error.message);
    const status = (error as FastifyError).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      // Fastify's own refusals (unsupported media type, body too large, bad JSON): arguments did not validate.
      return sendError(request, reply, 'invalid_request', error.message);
    }
    request.log.error({ err: error }, 'request failed');
    return sendError(
      request,
      reply,
      'internal_error',
      'the service failed; quote the request id when reporting it',
    );
  });

  app.setNotFoundHandler((request, reply) => sendError(request, reply, 'not_found', 'no such route'));

  const openApi = buildOpenApiDocument();
  app.get('/v1/openapi.json', async () => openApi);

  registerSessionRoutes(app, ctx);
  if (options.sandboxRoutes) registerSandboxRoutes(app, ctx);
  const peerSettings = options.peer ?? peerSettingsFromEnv();
  const integrations = new IntegrationService(
    ctx.db,
    ctx.secretBox,
    options.integrations ?? integrationSettingsFromEnv(),
    ctx.resolveHost,
  );
  app.addHook('onClose', () => integrations.close());
  registerOAuthCallback(app, integrations, ctx.now);
  await registerPeerRoutes(app, ctx, peerSettings, {
    list: (identityId) => integrations.offered(identityId),
    call: (identityId, name, args, now) => integrations.call(identityId, name, args, now),
  });
  const handlers = {
    ...webhookHandlers(ctx),
    ...contactHandlers(ctx, peerSettings),
    ...integrationHandlers(integrations),
    ...options.extraHandlers,
  } as Record<string, OperationHandler<Operation> | undefined>;
  registerOperations(app, ctx, { ...operations, ...options.extraOperations }, handlers);

  await app.ready();
  return app;
}
