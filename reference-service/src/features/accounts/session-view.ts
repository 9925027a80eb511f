import { isCrossSiteLogin } from '@svc-kit/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { crossSiteMessage } from '../../domain/cross-site-message.js';
import { ServiceError } from '../../domain/errors.js';
import { STEP_UP_WINDOW_MS } from '../../domain/step-up.js';
import { authorize, siteHeaders } from '../../http/policy.js';
import { listIdentities } from '../../store/queries/identities.js';
import { getWorkspace } from '../../store/queries/workspaces.js';
import { memberSummary } from './members.js';
import { getAccount, getSessionTimes } from './queries.js';
import { openSession, sessionCookie } from './session.js';

/**
 * The doors that need no credential yet (log-in, sign-up, an invite's acceptance) are refused only when a
 * browser says another site posted them; `what` names the door in the refusal.
 */
export function refuseCrossSiteEntry(ctx: ServiceContext, request: FastifyRequest, what: string): void {
  if (isCrossSiteLogin(siteHeaders(request), ctx.publicAddress.origin))
    throw new ServiceError('cross_site', crossSiteMessage(what, ctx.publicAddress.origin));
}

/** Opens a session for the member (a cookie on `reply`) and answers its view. */
export async function signIn(ctx: ServiceContext, reply: FastifyReply, memberId: string) {
  const session = await openSession(ctx, memberId, false);
  const view = await sessionView(ctx, session.id, memberId);
  reply.header('set-cookie', sessionCookie(session.token, session.expiresAt, ctx.now()));
  return view;
}

/**
 * The portal's own calls take a session, never an API key (a key answers 401, as without any credential):
 * a program has no use for them, and minting or step-up are the person's. Cross-site state changes are
 * refused by `authorize`; `stepUp` asks a fresh step-up as well; `counted: false` spends nothing of the
 * workspace's request budget.
 */
export async function requireSession(
  ctx: ServiceContext,
  request: FastifyRequest,
  stepUp = false,
  counted = true,
) {
  const { principal } = await authorize(ctx, request, { stepUp, suspended: false, counted });
  if (principal.kind !== 'session')
    throw new ServiceError('unauthenticated', 'this route takes a portal session, not an API key');
  const member = await getAccount(ctx.db, principal.memberId);
  if (!member) throw new ServiceError('unauthenticated', 'no portal session and no live API key');
  return { sessionId: principal.sessionId, member, principal };
}

/** What GET /v1/session answers (portal-api.md): who is signed in, where, and until when. */
export async function sessionView(ctx: ServiceContext, sessionId: string, memberId: string) {
  const member = await getAccount(ctx.db, memberId);
  const times = await getSessionTimes(ctx.db, sessionId);
  const workspace = member && (await getWorkspace(ctx.db, member.workspace_id));
  if (!member || !times || !workspace)
    throw new ServiceError('unauthenticated', 'no portal session and no live API key');
  const identities = await listIdentities(ctx.db, workspace.id);
  const now = ctx.now();
  const enrolled = member.mfa_secret_enc !== null;
  const until = times.stepped_up_at === null ? null : times.stepped_up_at + STEP_UP_WINDOW_MS;
  return {
    member: memberSummary(member),
    workspace: { id: workspace.id, name: workspace.name, webhooks_enabled: workspace.webhooks_enabled },
    identities: identities.map((identity) => ({ slug: identity.slug })),
    expires_at: times.expires_at,
    stepped_up_until: enrolled && until !== null && until > now ? until : null,
  };
}
