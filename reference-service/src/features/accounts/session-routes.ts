import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { limitBucket } from '../../domain/door-limits.js';
import { ServiceError } from '../../domain/errors.js';
import { hashPassword } from '../../domain/password.js';
import { limitedAddress, limitedNetwork } from '../../domain/sign-in-limits.js';
import { spendGuess } from '../../http/budget-guard.js';
import type { RouteRequirements } from '../../http/early-refusals.js';
import { parse } from '../../http/parse.js';
import { requireStepUpIfEnrolled } from '../../http/policy.js';
import { changePassword, regenerateRecoveryCodes } from './credentials.js';
import { confirmEnrolment, startEnrolment } from './mfa.js';
import { passwordProblem } from './password-policy.js';
import { deleteSession } from './queries.js';
import {
  isEmail,
  MFA_SECRETS_OFFERED,
  normalizeEmail,
  SIGN_UP_ATTEMPTS,
  SIGN_UP_NETWORK_ATTEMPTS,
} from './rules.js';
import { changePasswordBody, confirmMfaBody, signUpBody } from './schemas.js';
import { sessionCookie } from './session.js';
import { refuseCrossSiteEntry, requireSession, sessionView, signIn } from './session-view.js';
import { createWorkspaceWithOwner } from './sign-up.js';

/** Route config: no credential is asked, so unreadable input is answered 400, not 401 (early-refusals.ts). */
export const PUBLIC_ROUTE: RouteRequirements = { publicRoute: true };

export interface AccountRouteOptions {
  ctx: ServiceContext;
  /** Sign-up is open (everywhere but production, unless SVC_SIGNUP=open; see config.ts). */
  signUpOpen: boolean;
}

/** Sign-up, the session's own view (and the portal's signed-in-or-not check), and logout. */
export function registerSessionAccountRoutes(app: FastifyInstance, { ctx, signUpOpen }: AccountRouteOptions) {
  app.post('/v1/accounts', { config: PUBLIC_ROUTE }, async (request, reply) => {
    refuseCrossSiteEntry(ctx, request, 'a sign-up');
    if (!signUpOpen)
      throw new ServiceError(
        'forbidden',
        'sign-up is closed on this service; ask its operator for an account',
      );
    const body = parse(signUpBody, request.body, 'body');
    const email = normalizeEmail(body.email);
    if (!isEmail(email))
      throw new ServiceError('invalid_request', 'invalid body: email is not an e-mail address');
    const problem = passwordProblem(body.password, email);
    if (problem) throw new ServiceError('invalid_request', `invalid body: ${problem}`);
    // Every well-formed sign-up spends one token of the address's budget, successful or not: accounts cost
    // scrypt and rows, and an e-mail answered 409 is information.
    const network = limitedNetwork(request.ip);
    await spendGuess(
      ctx.db,
      [
        [limitBucket('sign-up', limitedAddress(request.ip)), SIGN_UP_ATTEMPTS],
        ...(network ? [[limitBucket('sign-up-network', network), SIGN_UP_NETWORK_ATTEMPTS] as const] : []),
      ],
      ctx.now(),
    );
    // Hashed before the transaction, which then writes everything or nothing.
    const passwordHash = await hashPassword(body.password, ctx.passwordCost);
    const created = await ctx.db.transaction((tx) =>
      createWorkspaceWithOwner(ctx, tx, { email, passwordHash, workspaceName: body.workspace_name }),
    );
    request.log.info({ workspace_id: created.workspaceId, member_id: created.memberId }, 'account signed up');
    return reply.code(201).send(await signIn(ctx, reply, created.memberId));
  });

  app.get('/v1/session', async (request) => {
    const { sessionId, member } = await requireSession(ctx, request);
    return sessionView(ctx, sessionId, member.id);
  });

  // The portal's first call on every load: whether a session is open, answered 200 either way (a 401
  // there is logged by the browser as an error on every signed-out visit), and the origin its calls must
  // come from, so a portal opened at another address says so before a log-in is refused. The origin is
  // public: every card and link of the service names it.
  app.get('/v1/session/state', { config: PUBLIC_ROUTE }, async (request) => {
    const session = await requireSession(ctx, request)
      .then(({ sessionId, member }) => sessionView(ctx, sessionId, member.id))
      .catch((error: unknown) => {
        if (error instanceof ServiceError && error.code === 'unauthenticated') return null;
        throw error;
      });
    return { origin: ctx.publicAddress.origin, session };
  });

  app.delete('/v1/session', async (request, reply) => {
    // Signing out is never refused for the workspace's request budget: a flood by its keys must not keep
    // a person from ending a session.
    const { sessionId } = await requireSession(ctx, request, false, false);
    await deleteSession(ctx.db, sessionId);
    // The session's own cookie, emptied and aged out: the same attributes, or the browser keeps it.
    reply.header('set-cookie', sessionCookie('', 0, 0));
    return reply.code(204).send();
  });
}

/**
 * The signed-in person's own credentials: MFA enrolment, or a new authenticator in place of the enrolled
 * one (a new seed with its QR code, then its confirmation by a first code); the password; the MFA
 * recovery codes.
 */
export function registerCredentialRoutes(app: FastifyInstance, { ctx }: AccountRouteOptions) {
  app.post('/v1/session/mfa', async (request, reply) => {
    const { member, principal } = await requireSession(ctx, request);
    // A new authenticator in place of the enrolled one is the second factor itself: a fresh step-up.
    requireStepUpIfEnrolled(principal, 'replacing the authenticator');
    await spendGuess(ctx.db, [[limitBucket('mfa-secret', member.id), MFA_SECRETS_OFFERED]], ctx.now());
    const enrolment = await startEnrolment(ctx, member);
    reply.header('cache-control', 'no-store');
    return enrolment;
  });

  app.post('/v1/session/mfa/confirm', async (request, reply) => {
    const { sessionId, member } = await requireSession(ctx, request);
    const { code } = parse(confirmMfaBody, request.body, 'body');
    const confirmed = await confirmEnrolment(ctx, member, sessionId, code);
    request.log.info(
      { member_id: member.id },
      member.mfa_secret_enc === null ? 'MFA enrolled' : 'authenticator replaced',
    );
    reply.header('cache-control', 'no-store');
    return confirmed;
  });

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
