import { bearerToken, isCrossSiteStateChange, type Operation, PERMISSIONS } from '@svc-kit/contract';
import type { CredentialGrant, SandboxStore } from '../state/model.js';
import { isWellFormedApiKey, SESSION_COOKIE } from './credentials.js';
import { Refusal } from './refusal.js';

const EVERY_PERMISSION: CredentialGrant = { permissions: new Set(PERMISSIONS), steppedUp: true };

type Principal = (CredentialGrant & { kind: 'key' }) | (CredentialGrant & { kind: 'session' });

const unauthenticated = () => new Refusal('unauthenticated', 'no portal session and no live API key');

/**
 * A present Authorization header decides, even when a cookie rides along (as in the service): the call is a
 * key call. Malformed, unknown and (seeded-away) keys all get the same 401.
 */
function principalOf(
  request: Request,
  cookies: Readonly<Record<string, string>>,
  store: SandboxStore,
): Principal {
  const authorization = request.headers.get('authorization');
  if (authorization !== null) {
    const key = bearerToken(authorization);
    if (key === undefined || !isWellFormedApiKey(key)) throw unauthenticated();
    const grant = store.keys === null ? EVERY_PERMISSION : store.keys.get(key);
    if (!grant) throw unauthenticated();
    // A key has no session, so it never counts as stepped up, whatever it was seeded with.
    return { kind: 'key', permissions: grant.permissions, steppedUp: false };
  }
  const token = cookies[SESSION_COOKIE];
  if (token === undefined || token === '') throw unauthenticated();
  const grant = store.sessions === null ? EVERY_PERMISSION : store.sessions.get(token);
  if (!grant) throw unauthenticated();
  return { kind: 'session', ...grant };
}

/** The contract's rule (spec part 5), as the service applies it. */
function isCrossSite(request: Request, ownOrigin: string): boolean {
  return isCrossSiteStateChange(
    request.method,
    {
      secFetchSite: request.headers.get('sec-fetch-site') ?? undefined,
      origin: request.headers.get('origin') ?? undefined,
    },
    ownOrigin,
  );
}

/**
 * The service's refusals, in its order: 401 without a live credential; 403 `cross_site` for a session call
 * from another site; 403 `step_up_required` on a step-up operation for a key (always) or a session that has
 * not stepped up; 403 `forbidden` without the operation's permission; 403 `workspace_deletion_hold` /
 * `workspace_suspended` on operations flagged `suspended`.
 */
export function authorize(
  op: Operation,
  request: Request,
  cookies: Readonly<Record<string, string>>,
  store: SandboxStore,
  ownOrigin: string,
): void {
  const principal = principalOf(request, cookies, store);
  if (principal.kind === 'session' && isCrossSite(request, ownOrigin)) {
    throw new Refusal('cross_site', 'a state-changing call with a session must come from the same origin');
  }
  if (op.flags.stepUp && !principal.steppedUp) {
    throw new Refusal(
      'step_up_required',
      principal.kind === 'key'
        ? 'this operation needs a stepped-up session; API keys cannot step up'
        : 'this operation needs MFA re-authentication within the last 15 minutes',
    );
  }
  if (!principal.permissions.has(op.permission)) {
    throw new Refusal(
      'forbidden',
      `this ${principal.kind === 'key' ? 'key' : 'session'} does not carry the permission ${op.permission}`,
    );
  }
  if (op.flags.suspended && store.workspace.deletionHold) {
    throw new Refusal(
      'workspace_deletion_hold',
      'the workspace is on deletion hold; this operation is refused',
    );
  }
  if (op.flags.suspended && store.workspace.suspended) {
    throw new Refusal('workspace_suspended', 'the workspace is suspended; this operation is refused');
  }
}
