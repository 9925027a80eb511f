import type { FastifyInstance } from 'fastify';
import { parse } from '../../http/parse.js';
import { requireStepUpIfEnrolled } from '../../http/policy.js';
import { changePassword, regenerateRecoveryCodes } from './credentials.js';
import { changePasswordBody } from './schemas.js';
import type { AccountRouteOptions } from './session-routes.js';
import { requireSession } from './session-view.js';

/** The signed-in person's own credentials: the password, and the MFA recovery codes. */
export function registerCredentialRoutes(app: FastifyInstance, { ctx }: AccountRouteOptions) {
  app.post('/v1/session/password', async (request) => {
    const { sessionId, member, principal } = await requireSession(ctx, request);
    // Before the current password is even checked: with MFA, the password alone proves nothing here.
    requireStepUpIfEnrolled(principal, 'changing the password');
    const body = parse(changePasswordBody, request.body, 'body');
    const { sessions_ended } = await changePassword(ctx, member, sessionId, body);
    request.log.info({ member_id: member.id, sessions_ended }, 'password changed');
    return { sessions_ended };
  });

  app.post('/v1/session/recovery-codes', async (request, reply) => {
    // Codes that stand in for the authenticator are as sensitive as minting a key: a fresh step-up.
    const { member } = await requireSession(ctx, request, true);
    const answer = await regenerateRecoveryCodes(ctx, member);
    request.log.info({ member_id: member.id }, 'recovery codes regenerated');
    reply.header('cache-control', 'no-store');
    return answer;
  });
}
