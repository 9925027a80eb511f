import { hash } from 'node:crypto';
import { bearerToken, type Permission } from '@svc-kit/contract';
import type { FastifyRequest } from 'fastify';
import { parseApiKey, secretMatches } from '../domain/api-key.js';
import { keyPermissions, sessionPermissions } from '../domain/permissions.js';
import { isSteppedUp } from '../domain/step-up.js';
import type { CredentialCache } from '../store/credential-cache.js';
import type { Queryable } from '../store/db.js';
import { getKeyPrincipal } from '../store/queries/key-principal.js';
import { getMember } from '../store/queries/members.js';
import { findLiveSession } from '../store/queries/sessions.js';
import type { WorkspaceRow } from '../store/queries/workspaces.js';

export const SESSION_COOKIE = '__Host-svc_session';

/** Who is calling, resolved once per request from a bearer key or the session cookie. */
export type Principal =
  | {
      kind: 'key';
      keyId: string;
      memberId: string;
      workspaceId: string;
      permissions: Set<Permission>;
      /** Read with the key, in the same statement (or held with it in the credential cache). */
      workspace: WorkspaceRow;
    }
  | {
      kind: 'session';
      sessionId: string;
      memberId: string;
      workspaceId: string;
      permissions: Set<Permission>;
      mfaEnrolled: boolean;
      steppedUp: boolean;
    };

/** Compared against when the key id is unknown, so unknown and wrong keys take the same time. */
const DUMMY_HASH = hash('sha256', 'no such key');

export function hashSessionToken(token: string): string {
  return hash('sha256', token);
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}

/** The id of the API key a request presents, proven or not. */
export function presentedKeyId(request: FastifyRequest): string | undefined {
  const authorization = request.headers.authorization;
  const token = authorization === undefined ? undefined : bearerToken(authorization);
  return token === undefined ? undefined : parseApiKey(token)?.id;
}

/**
 * An Authorization header decides (a cookie riding along is ignored), so that a program never acts with a
 * browser's session by accident. Every failure is `undefined`, the one 401: malformed, unknown and revoked
 * keys look alike.
 */
export async function resolvePrincipal(
  db: Queryable,
  request: FastifyRequest,
  now: number,
  credentials?: CredentialCache,
): Promise<Principal | undefined> {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const token = bearerToken(authorization);
    const parsed = token === undefined ? undefined : parseApiKey(token);
    if (!parsed) return undefined;
    const row = credentials ? await credentials.lookup(db, parsed.id) : await getKeyPrincipal(db, parsed.id);
    const matches = secretMatches(parsed.secret, row?.secret_hash ?? DUMMY_HASH);
    if (!row || !matches || row.revoked_at !== null) return undefined;
    if (row.member_workspace_id !== row.workspace_id) return undefined;
    return {
      kind: 'key',
      keyId: row.id,
      memberId: row.member_id,
      workspaceId: row.workspace_id,
      permissions: keyPermissions(row.member_permissions, row.scopes),
      workspace: row.workspace,
    };
  }
  const token = readCookie(request.headers.cookie, SESSION_COOKIE);
  if (!token) return undefined;
  const session = await findLiveSession(db, hashSessionToken(token), now);
  if (!session) return undefined;
  const member = await getMember(db, session.member_id);
  if (!member) return undefined;
  const mfaEnrolled = member.mfa_secret_enc !== null;
  return {
    kind: 'session',
    sessionId: session.id,
    memberId: member.id,
    workspaceId: member.workspace_id,
    permissions: sessionPermissions(member.permissions),
    mfaEnrolled,
    steppedUp: isSteppedUp(mfaEnrolled, session.stepped_up_at, now),
  };
}
