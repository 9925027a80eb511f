import { isCrossSiteStateChange, type Permission, type SiteHeaders } from '@svc-kit/contract';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { crossSiteMessage } from '../domain/cross-site-message.js';
import { limitBucket } from '../domain/door-limits.js';
import { ServiceError } from '../domain/errors.js';
import { CREDENTIAL_FAILURES, limitedAddress } from '../domain/sign-in-limits.js';
import { workspaceRefusal } from '../domain/workspace-state.js';
import { getWorkspace, type WorkspaceRow } from '../store/queries/workspaces.js';
import { spendBudget } from './budget-guard.js';
import { type Principal, presentedKeyId, readCookie, resolvePrincipal, SESSION_COOKIE } from './principal.js';

export interface Requirements {
  /** `undefined`: any authenticated member (our own session routes). */
  permission?: Permission | undefined;
  stepUp: boolean;
  /** Refused while the workspace is suspended or on deletion hold. */
  suspended: boolean;
  /** Named (the operation): a session of a member with MFA must be stepped up (requireStepUpIfEnrolled). */
  stepUpIfEnrolled?: string | undefined;
  /**
   * `false`: a check the service makes of itself on a request already counted (a listener's stream, checked
   * again periodically), which spends nothing of the workspace's request budget.
   */
  counted?: boolean | undefined;
}

export interface Authorized {
  principal: Principal;
  workspace: WorkspaceRow;
}

/**
 * Spec part 5, in the order the refusals are answered: 401 without a live credential; 429 past the
 * workspace's request budget (domain/workspace-requests.ts); 403 `cross_site`
 * for a session call from another site; 403 `step_up_required` for a key (whatever its scopes) or a stale
 * session on a step-up operation; 403 `forbidden` without the permission; 403 `workspace_suspended` /
 * `workspace_deletion_hold` on operations flagged `suspended`.
 */
export async function authorize(
  ctx: ServiceContext,
  request: FastifyRequest,
  requirements: Requirements,
  now = ctx.now(),
): Promise<Authorized> {
  const { db, credentials } = ctx;
  const publicOrigin = ctx.publicAddress.origin;
  const counted = requirements.counted !== false;
  // A key whose workspace is known spent is refused before its lookup (a statement on PostgreSQL).
  const keyId = counted ? presentedKeyId(request) : undefined;
  if (keyId !== undefined) ctx.requests?.refuseSpentKey(keyId, now);
  const principal = await resolvePrincipal(db, request, now, credentials);
  if (!principal) {
    if (presentsCredential(request)) {
      // Refused keys and cookies from one address are counted: past the budget, 429 instead of 401.
      const bucket = limitBucket('credential', limitedAddress(request.ip));
      await spendBudget(db, bucket, CREDENTIAL_FAILURES, now);
    }
    throw new ServiceError('unauthenticated', 'no portal session and no live API key');
  }
  // Every authenticated call spends its workspace's request budget, refused ones included: 429 past it.
  if (principal.kind === 'key') ctx.requests?.rememberKey(principal.keyId, principal.workspaceId);
  if (counted) ctx.requests?.take(principal.workspaceId, now);
  if (
    principal.kind === 'session' &&
    isCrossSiteStateChange(request.method, siteHeaders(request), publicOrigin)
  ) {
    throw new ServiceError(
      'cross_site',
      crossSiteMessage('a state-changing call with a session', publicOrigin),
    );
  }
  if (requirements.stepUp) {
    if (principal.kind === 'key') {
      throw new ServiceError(
        'step_up_required',
        'this operation needs a stepped-up session; API keys cannot step up',
      );
    }
    if (!principal.steppedUp) {
      throw new ServiceError(
        'step_up_required',
        principal.mfaEnrolled
          ? 'this operation needs MFA re-authentication within the last 15 minutes'
          : 'this operation needs MFA, which is not enrolled for this member',
      );
    }
  }
  if (requirements.stepUpIfEnrolled !== undefined)
    requireStepUpIfEnrolled(principal, requirements.stepUpIfEnrolled);
  if (requirements.permission !== undefined && !principal.permissions.has(requirements.permission)) {
    throw new ServiceError(
      'forbidden',
      principal.kind === 'key'
        ? `this key does not carry the permission ${requirements.permission}`
        : `this member does not hold the permission ${requirements.permission}`,
    );
  }
  const workspace =
    principal.kind === 'key' ? principal.workspace : await getWorkspace(db, principal.workspaceId);
  if (!workspace) throw new ServiceError('unauthenticated', 'no portal session and no live API key');
  const refusal = requirements.suspended ? workspaceRefusal(workspace) : undefined;
  if (refusal !== undefined) {
    const state = refusal === 'workspace_suspended' ? 'suspended' : 'on deletion hold';
    throw new ServiceError(refusal, `the workspace is ${state}; this operation is refused`);
  }
  return { principal, workspace };
}

/**
 * Account changes a password alone must not make for a member with MFA (open-choices, "Step-up for account
 * changes"): an enrolled member's session must be stepped up, or whoever learnt the password could lock the
 * owner out. A key answers to the operation's own flags.
 */
export function requireStepUpIfEnrolled(principal: Principal, what: string): void {
  if (principal.kind === 'session' && principal.mfaEnrolled && !principal.steppedUp)
    throw new ServiceError(
      'step_up_required',
      `${what} needs MFA re-authentication within the last 15 minutes: a password alone is not enough for a member with MFA`,
    );
}

/** The headers a browser adds about where a request comes from (the configured origin is what they are compared with). */
export function siteHeaders(request: FastifyRequest): SiteHeaders {
  return { secFetchSite: headerValue(request, 'sec-fetch-site'), origin: headerValue(request, 'origin') };
}

function presentsCredential(request: FastifyRequest): boolean {
  return (
    request.headers.authorization !== undefined ||
    readCookie(request.headers.cookie, SESSION_COOKIE) !== undefined
  );
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
