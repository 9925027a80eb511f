import type { FastifyInstance } from 'fastify';
import { sendError } from '../http/error-body.js';
import { OAUTH_CALLBACK_PATH } from './oauth-provider.js';
import type { IntegrationService } from './service.js';
import { UpstreamFailure } from './upstream.js';

/**
 * Where the upstream's authorization server sends the owner back (`redirect_uri`). No session is needed:
 * the `state` value, random and single-use, names the integration whose ceremony is completed. The code is
 * exchanged with the stored PKCE verifier; the tokens are stored sealed.
 */
export function registerOAuthCallback(app: FastifyInstance, service: IntegrationService, now: () => number) {
  // The query carries the authorization code: the route logs no request lines (warnings and errors only).
  app.get(OAUTH_CALLBACK_PATH, { logLevel: 'warn' }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const state = typeof query.state === 'string' ? query.state : undefined;
    const code = typeof query.code === 'string' ? query.code : undefined;
    if (typeof query.error === 'string') {
      return sendError(
        request,
        reply,
        'invalid_request',
        `the authorization server refused: ${query.error.slice(0, 64)}`,
      );
    }
    if (state === undefined || code === undefined || state.length > 128 || code.length > 4096) {
      return sendError(request, reply, 'invalid_request', 'the callback needs `code` and `state`');
    }
    try {
      const row = await service.finishAuthorization(state, code, now());
      if (!row) return sendError(request, reply, 'not_found', 'no authorization is waiting for this state');
      return reply.code(200).send({ status: 'authorized', integration: row.slug });
    } catch (error) {
      if (error instanceof UpstreamFailure) {
        return sendError(request, reply, 'invalid_request', `the authorization failed: ${error.message}`);
      }
      throw error;
    }
  });
}
