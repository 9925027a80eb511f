import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { operationsOfGroup, registerOperations } from '../../http/operations.js';
import { registerOAuthCallback } from './oauth-callback.js';
import { integrationRoutes } from './routes.js';
import type { IntegrationService } from './service.js';

/** The integration operations (spec 4.3) and the OAuth callback upstreams send the browser back to. */
export async function integrationsPlugin(
  app: FastifyInstance,
  { ctx, service }: { ctx: ServiceContext; service: IntegrationService },
): Promise<void> {
  registerOAuthCallback(app, ctx, service);
  registerOperations(app, ctx, operationsOfGroup('integrations'), integrationRoutes(service));
}
