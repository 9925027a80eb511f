import type { ServiceContext } from '../../context.js';
import { limitBucket } from '../../domain/door-limits.js';
import { ServiceError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { hashPassword } from '../../domain/password.js';
import { scopesBeyondMember } from '../../domain/permissions.js';
import { spendGuess } from '../../http/budget-guard.js';
import { passwordProblem } from './password-policy.js';
import {
  type AccountRow,
  acceptInvite,
  conflictIfTaken,
  findLiveInvite,
  getAccount,
  insertAccount,
  insertInvite,
  listAccounts,
  removeAccount,
} from './queries.js';
import {
  hashToken,
  INVITES_SENT,
  inviteRow,
  isEmail,
  newInviteToken,
  normalizeEmail,
  removalRefusal,
  WORKSPACE_INVITES_SENT,
} from './rules.js';

/** A member as the session shows it; the members list adds when and how they joined. */
export function memberSummary(row: AccountRow) {
  const { id, email, permissions, owner } = row;
  return { id, email, permissions, mfa_enrolled: row.mfa_secret_enc !== null, owner };
}

function memberView(row: AccountRow, invited: boolean) {
  return { ...memberSummary(row), created_at: row.created_at, invited };
}

export async function listMembers(ctx: ServiceContext, workspaceId: string) {
  return (await listAccounts(ctx.db, workspaceId)).map((row) => memberView(row, row.invited));
}

/**
 * Invites a member into the actor's workspace with at most the actor's permissions. The token is answered
 * once and kept as a hash; it opens the account once, within 7 days.
 */
export async function inviteMember(
  ctx: ServiceContext,
  actor: AccountRow,
  input: { email: string; permissions: readonly string[] },
) {
  const email = normalizeEmail(input.email);
  if (!isEmail(email))
    throw new ServiceError('invalid_request', 'invalid body: email is not an e-mail address');
  // An invite, like a key, is never wider than its author.
  const permissions = [...new Set(input.permissions)];
  const beyond = scopesBeyondMember(actor.permissions, permissions);
  if (beyond.length > 0)
    throw new ServiceError('forbidden', `an invite cannot carry permissions you lack: ${beyond.join(', ')}`);
  const now = ctx.now();
  // Every invite counts, sent or not: each is a row and, once accepted, an account.
  await spendGuess(
    ctx.db,
    [
      [limitBucket('invite-sent', actor.id), INVITES_SENT],
      [limitBucket('invite-sent-workspace', actor.workspace_id), WORKSPACE_INVITES_SENT],
    ],
    now,
  );
  const token = newInviteToken();
  const row: AccountRow = {
    id: newId('mem'),
    workspace_id: actor.workspace_id,
    email,
    password_hash: null,
    permissions,
    mfa_secret_enc: null,
    mfa_pending_enc: null,
    owner: false,
    removed_at: null,
    created_at: now,
  };
  await ctx.db.transaction(async (tx) => {
    await insertAccount(tx, row, 'this e-mail already belongs to an account');
    await insertInvite(tx, inviteRow(row.id, actor.id, token, now));
  });
  // An address that already has an account is invited like any other (the inviter learns nothing about
  // other workspaces); the invite is refused when accepted.
  return { member: memberView(row, true), invite_token: token };
}

/** Sets the invited member's password and takes the invite: the member that can now sign in. */
export async function acceptMemberInvite(
  ctx: ServiceContext,
  input: { token: string; password: string },
): Promise<AccountRow> {
  const now = ctx.now();
  const tokenHash = hashToken(input.token);
  const invite = await findLiveInvite(ctx.db, tokenHash, now);
  if (!invite) throw new ServiceError('not_found', 'no such invite: it is unknown, expired or used');
  const problem = passwordProblem(input.password, invite.email);
  if (problem) throw new ServiceError('invalid_request', `invalid body: ${problem}`);
  const passwordHash = await hashPassword(input.password, ctx.passwordCost);
  const member = await acceptInvite(ctx.db, tokenHash, passwordHash, ctx.now()).catch(
    conflictIfTaken(
      'this e-mail already has an account; a person belongs to one workspace, so sign in with it or ask for an invite to another address',
    ),
  );
  if (!member) throw new ServiceError('not_found', 'no such invite: it is unknown, expired or used');
  return member;
}

/** Removes a member of the actor's workspace: keys revoked, sessions and invite gone, in one transaction. */
export async function removeMember(ctx: ServiceContext, actor: AccountRow, targetId: string): Promise<void> {
  const target = await getAccount(ctx.db, targetId);
  if (!target || target.workspace_id !== actor.workspace_id)
    throw new ServiceError('not_found', 'no such member');
  const refusal = removalRefusal(actor, target);
  if (refusal) throw new ServiceError('forbidden', refusal);
  const removed = await ctx.db.transaction((tx) => removeAccount(tx, target.id, ctx.now()));
  if (!removed) throw new ServiceError('not_found', 'no such member');
}
