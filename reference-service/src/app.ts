import { type Operation, operations } from '@svc-kit/contract';
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from './context.js';
import { registerLoginRoutes } from './features/accounts/login-routes.js';
import {
  registerCredentialRoutes,
  registerSessionAccountRoutes,
} from './features/accounts/session-routes.js';
import { registerWorkspaceRoutes } from './features/accounts/workspace-routes.js';
import { registerPeerRoutes } from './features/contacts/peer-routes.js';
import { contactRoutes } from './features/contacts/routes.js';
import { registerIdentityCardRoute } from './features/identity-card/route.js';
import { registerOAuthCallback } from './features/integrations/oauth-callback.js';
import { integrationRoutes } from './features/integrations/routes.js';
import { IntegrationService } from './features/integrations/service.js';
import { DEFAULT_INTEGRATION_SETTINGS, type IntegrationSettings } from './features/integrations/settings.js';
import { registerRelayRoutes } from './features/listen/routes.js';
import { portalPlugin } from './features/portal-static/plugin.js';
import { registerSandboxRoutes } from './features/sandbox/trigger.js';
import { registerWebhookPortalRoutes } from './features/webhooks/portal-routes.js';
import { webhookRoutes } from './features/webhooks/routes.js';
import { createHttpApp, type HttpOptions } from './http/base.js';
import { type OperationEntry, operationsOfGroup, registerOperations } from './http/operations.js';
import { DEFAULT_PEER_SETTINGS, type PeerSettings } from './peer/settings.js';
import type { Relay } from './relay/relay.js';

/** The HTTP server's options (http/base.ts), the served operations aside, and the features'. */
export interface AppOptions extends Omit<HttpOptions, 'operations'> {
  /** Extra operations and handlers (tests register a test-only idempotent operation this way). */
  extraOperations?: Readonly<Record<string, Operation>>;
  extraHandlers?: Readonly<Record<string, OperationEntry<Operation>>>;
  /** How contacts reach peers (config.ts); no sandbox opt-in when left out. */
  peer?: PeerSettings;
  /** How integrations reach upstream MCP servers (config.ts); no sandbox opt-in when left out. */
  integrations?: IntegrationSettings;
  /** Serve the sandbox-only routes (`POST /sandbox/events`); never in production. */
  sandboxRoutes?: boolean;
  /** Budget test events per workspace (features/sandbox/trigger.ts); the service always does, tests choose. */
  sandboxEventBudget?: boolean;
  /** Serve the relay behind `svc-webhooks listen` (`/relay/v1/…`) through this relay. */
  relay?: Relay | undefined;
  /** Anyone may create an account with `POST /v1/accounts` (config.ts: off in production by default). */
  signUpOpen?: boolean;
  /** The built portal served at `/` (config.ts: dist/portal); unset: `/` says how to build it. */
  portalDir?: string | undefined;
}

/**
 * The composition root: builds the parts each surface needs and registers every surface on the HTTP
 * server as a plugin of its own. The only place that knows all the features.
 */
export async function buildApp(ctx: ServiceContext, options: AppOptions): Promise<FastifyInstance> {
  const app = await createHttpApp(ctx, {
    ...options,
    operations: { ...operations, ...options.extraOperations },
  });

  // The portal's own account routes, outside the /v1 contract (listed in features/accounts/README.md).
  await app.register(async (scope) => {
    const accounts = { ctx, signUpOpen: options.signUpOpen ?? false };
    registerLoginRoutes(scope, accounts);
    registerSessionAccountRoutes(scope, accounts);
    registerCredentialRoutes(scope, accounts);
    registerWorkspaceRoutes(scope, accounts);
  });
  await app.register(portalPlugin, { dir: options.portalDir });
  await app.register(async (scope) => registerIdentityCardRoute(scope, ctx));
  await app.register(async (scope) => registerWebhookPortalRoutes(scope, ctx));
  if (options.sandboxRoutes)
    await app.register(async (scope) =>
      registerSandboxRoutes(scope, ctx, options.sandboxEventBudget ?? false),
    );
  const relay = options.relay;
  if (relay !== undefined) {
    await app.register(async (scope) => registerRelayRoutes(scope, ctx, relay));
    // Open streams would keep the server from closing: they end first, failing what waits on them.
    app.addHook('preClose', () => relay.stop());
  }

  const integrations = new IntegrationService(
    ctx.db,
    ctx.secretBox,
    options.integrations ?? DEFAULT_INTEGRATION_SETTINGS,
    ctx.resolveHost,
    ctx.publicAddress,
  );
  app.addHook('onClose', () => integrations.close());
  await app.register(async (scope) => {
    // The OAuth callback is where upstreams send the owner's browser back.
    registerOAuthCallback(scope, ctx, integrations);
    registerOperations(scope, ctx, operationsOfGroup('integrations'), integrationRoutes(integrations));
  });
  await app.register(async (scope) => {
    const peer = options.peer ?? DEFAULT_PEER_SETTINGS;
    registerOperations(scope, ctx, operationsOfGroup('contacts'), contactRoutes({ ...ctx, peer }));
    // The peer protocol's inbound side; the identity offers its contacts its integrations' exposures.
    await registerPeerRoutes(scope, ctx, integrations);
  });
  await app.register(async (scope) =>
    registerOperations(scope, ctx, operationsOfGroup('webhooks'), webhookRoutes(ctx)),
  );
  const extra = options.extraOperations;
  if (extra !== undefined) {
    await app.register(async (scope) => registerOperations(scope, ctx, extra, options.extraHandlers ?? {}));
  }

  await app.ready();
  return app;
}
