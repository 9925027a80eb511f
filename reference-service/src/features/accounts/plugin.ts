import type { FastifyInstance } from 'fastify';
import { registerCredentialRoutes } from './credential-routes.js';
import {
  type AccountRouteOptions,
  registerMfaRoutes,
  registerSessionAccountRoutes,
} from './session-routes.js';
import { registerWorkspaceRoutes } from './workspace-routes.js';

/**
 * The service's own account routes behind the portal (sign-up, the session, MFA enrolment, password
 * and recovery codes, members, the key list, the workspace switch). Not part of the /v1 contract; listed
 * in this folder's README.
 */
export async function accountsPlugin(app: FastifyInstance, options: AccountRouteOptions): Promise<void> {
  registerSessionAccountRoutes(app, options);
  registerMfaRoutes(app, options);
  registerCredentialRoutes(app, options);
  registerWorkspaceRoutes(app, options);
}
