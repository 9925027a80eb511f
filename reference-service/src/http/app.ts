import { buildOpenApiDocument, type Operation, operations } from '@svc-kit/contract';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { ServiceError } from '../domain/errors.js';
import { registerSessionRoutes } from '../features/accounts/login-routes.js';
import { accountsPlugin } from '../features/accounts/plugin.js';
import { registerPeerRoutes } from '../features/contacts/peer-routes.js';
import { contactRoutes } from '../features/contacts/routes.js';
import { registerIdentityCardRoute } from '../features/identity-card/route.js';
import { registerOAuthCallback } from '../features/integrations/oauth-callback.js';
import { integrationRoutes } from '../features/integrations/routes.js';
import { IntegrationService } from '../features/integrations/service.js';
import { type IntegrationSettings, integrationSettingsFromEnv } from '../features/integrations/settings.js';
import { portalPlugin } from '../features/portal-static/plugin.js';
import { registerSandboxRoutes } from '../features/sandbox/trigger.js';
import { webhookRoutes } from '../features/webhooks/routes.js';
import { AccessLogController } from '../ops/access-log.js';
import { type Readiness, registerHealthRoutes } from '../ops/health.js';
import type { ServiceMetrics } from '../ops/metrics.js';
import { recordRequestMetrics } from '../ops/request-metrics.js';
import { type PeerSettings, peerSettingsFromEnv } from '../peer/settings.js';
import type { Relay } from '../relay/relay.js';
import { registerRelayRoutes } from '../relay/routes.js';
import { registerConditionalGet } from './conditional-get.js';
import {
  clientErrorHandler,
  frameworkErrorsHandler,
  newRequestId,
  nulInPathOrQuery,
  refuseInput,
  requireHost,
  unreadableMessage,
} from './early-refusals.js';
import { sendError, sendServiceError } from './error-body.js';
import { parseJsonBody, UnreadableBody } from './hostile-input.js';
import { type OperationEntry, registerOperations } from './operations.js';
import type { ServiceContext } from './service-context.js';

export interface AppOptions {
  logger: Logger;
  /** Extra operations and handlers (tests register a test-only idempotent operation this way). */
  extraOperations?: Readonly<Record<string, Operation>>;
  extraHandlers?: Readonly<Record<string, OperationEntry<Operation>>>;
  /** How contacts reach peers; read from the environment when left out (see peer/settings.ts). */
  peer?: PeerSettings;
  /** How integrations reach upstream MCP servers; from the environment when left out. */
  integrations?: IntegrationSettings;
  /** Serve the sandbox-only routes (`POST /sandbox/events`); never in production. */
  sandboxRoutes?: boolean;
  /** Serve the relay behind `svc-webhooks listen` (`/relay/v1/…`) through this relay. */
  relay?: Relay | undefined;
  /** Proxies whose `X-Forwarded-For` names the client address (SVC_TRUSTED_PROXIES); none by default. */
  trustedProxies?: readonly string[];
  /** Serve `/healthz` and `/readyz` (see ops/health.ts). */
  readiness?: Readiness;
  /** Count and time every answer (served on a port of its own, see ops/metrics-server.ts). */
  metrics?: ServiceMetrics;
  /** Anyone may create an account with `POST /v1/accounts` (config.ts: off in production by default). */
  signUpOpen?: boolean;
  /** The built portal served at `/` (config.ts: dist/portal); unset: `/` says how to build it. */
  portalDir?: string | undefined;
}

/** 1 MiB is far above any body of the contract (the largest, a contact card, is 16 KiB). */
const BODY_LIMIT = 1024 * 1024;

export async function buildApp(ctx: ServiceContext, options: AppOptions): Promise<FastifyInstance> {
  const logger = options.logger as FastifyBaseLogger;
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
    http: { requireHostHeader: false },
    // Requests arriving while the server drains are served (Fastify's own 503 has another body).
    return503OnClosing: false,
    // Only `request.ip` follows it (the sign-in limits); the public URL and origin never come from a request.
    trustProxy: options.trustedProxies?.length ? [...options.trustedProxies] : false,
    logController: new AccessLogController(),
  });

  // An empty body with a JSON content type means "no body" (some clients send the header on DELETE).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    try {
      done(null, parseJsonBody(typeof text === 'string' ? text : text.toString('utf8')));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onRequest', requireHost);
  registerConditionalGet(app);
  app.addHook('preHandler', nulInPathOrQuery(ctx));
  if (options.metrics)
    recordRequestMetrics(app, options.metrics, { ...operations, ...options.extraOperations });
  if (options.readiness) await registerHealthRoutes(app, ctx.db, options.readiness);

  app.setErrorHandler(async (error: FastifyError | ServiceError, request, reply) => {
    // Raised before the handler ran (the body parser, Fastify's body reading): the caller is checked first.
    if (error instanceof UnreadableBody) return refuseInput(ctx, request, reply, error.message);
    if (error instanceof ServiceError) return sendServiceError(request, reply, error);
    const status = (error as FastifyError).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      // Fastify's own refusals (unsupported media type, body too large): arguments did not validate.
      return refuseInput(ctx, request, reply, unreadableMessage(error as FastifyError, BODY_LIMIT));
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
  await app.register(accountsPlugin, { ctx, signUpOpen: options.signUpOpen ?? false });
  await app.register(portalPlugin, { dir: options.portalDir });
  registerIdentityCardRoute(app, ctx);
  if (options.sandboxRoutes) registerSandboxRoutes(app, ctx);
  const relay = options.relay;
  if (relay !== undefined) {
    registerRelayRoutes(app, ctx, relay);
    // Open streams would keep the server from closing: they end first, failing what waits on them.
    app.addHook('preClose', () => relay.stop());
  }
  const peerSettings = options.peer ?? peerSettingsFromEnv();
  const integrations = new IntegrationService(
    ctx.db,
    ctx.secretBox,
    options.integrations ?? integrationSettingsFromEnv(),
    ctx.resolveHost,
    ctx.publicAddress,
  );
  app.addHook('onClose', () => integrations.close());
  registerOAuthCallback(app, integrations, ctx.now);
  await registerPeerRoutes(app, ctx, {
    list: (identityId) => integrations.offered(identityId),
    call: (identityId, name, args, now) => integrations.call(identityId, name, args, now),
  });
  const handlers = {
    ...webhookRoutes(ctx),
    ...contactRoutes({
      secretBox: ctx.secretBox,
      resolveHost: ctx.resolveHost,
      publicAddress: ctx.publicAddress,
      peer: peerSettings,
    }),
    ...integrationRoutes(integrations),
    ...options.extraHandlers,
  } as Record<string, OperationEntry<Operation> | undefined>;
  registerOperations(app, ctx, { ...operations, ...options.extraOperations }, handlers);

  await app.ready();
  return app;
}
