import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { operationsOfGroup, registerOperations } from '../../http/operations.js';
import type { PeerSettings } from '../../peer/settings.js';
import type { OfferedToolsSource } from './inbound.js';
import { registerPeerRoutes } from './peer-routes.js';
import { contactRoutes } from './routes.js';

/**
 * The contact operations (spec 4.2) and the peer protocol's inbound routes (PEER-PROTOCOL.md); `tools` is
 * what the identity offers its contacts (the integrations' exposures).
 */
export async function contactsPlugin(
  app: FastifyInstance,
  { ctx, peer, tools }: { ctx: ServiceContext; peer: PeerSettings; tools: OfferedToolsSource },
): Promise<void> {
  registerOperations(app, ctx, operationsOfGroup('contacts'), contactRoutes({ ...ctx, peer }));
  await registerPeerRoutes(app, ctx, tools);
}
