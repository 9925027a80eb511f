import type { FastifyInstance } from 'fastify';
import { registerLoginRoutes } from './login-routes.js';
import {
  type AccountRouteOptions,
  registerCredentialRoutes,
  registerSessionAccountRoutes,
} from './session-routes.js';
import { registerWorkspaceRoutes } from './workspace-routes.js';

/**
 * The service's own account routes behind the portal (log-in and step-up, sign-up, the session, MFA
 * enrolment, password and recovery codes, members, API keys, the workspace switch). Not part of the /v1
 * contract; listed in this folder's README.
 */
export async function accountsPlugin(app: FastifyInstance, options: AccountRouteOptions): Promise<void> {
  registerLoginRoutes(app, options);
  registerSessionAccountRoutes(app, options);
  registerCredentialRoutes(app, options);
  registerWorkspaceRoutes(app, options);
}
