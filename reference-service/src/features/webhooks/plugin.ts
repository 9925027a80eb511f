import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { operationsOfGroup, registerOperations } from '../../http/operations.js';
import { webhookRoutes } from './routes.js';

/** The workspace's webhook endpoint operations (spec 4.1). */
export async function webhooksPlugin(app: FastifyInstance, options: { ctx: ServiceContext }): Promise<void> {
  registerOperations(app, options.ctx, operationsOfGroup('webhooks'), webhookRoutes(options.ctx));
}
