import type { ServiceContext } from '../../context.js';
import { ServiceError } from '../../domain/errors.js';
import { getMemberByEmail } from '../../store/queries/members.js';
import { insertInvite } from './queries.js';
import { INVITE_LIFETIME_MS, inviteRow, isEmail, newInviteToken, normalizeEmail } from './rules.js';
import { createWorkspaceWithOwner } from './sign-up.js';

/**
 * The operator's way to an account where sign-up is closed (`create-workspace` of the admin CLI): the
 * workspace and its owner, who has no password yet, and an invite link (7 days, once) on which the owner
 * chooses one. The operator never learns the owner's password.
 */
export async function createWorkspaceForOwner(
  ctx: ServiceContext,
  name: string,
  ownerEmail: string,
): Promise<{ workspaceId: string; slugs: string[]; link: string; expiresAt: number }> {
  const email = normalizeEmail(ownerEmail);
  if (!isEmail(email)) throw new ServiceError('invalid_request', `${ownerEmail} is not an e-mail address`);
  if (name.trim() === '' || name.length > 64 || /[\p{Cc}\p{Cf}]/u.test(name))
    throw new ServiceError('invalid_request', 'the workspace name must be 1 to 64 printable characters');
  // The operator may learn that an address has an account (an invite would only fail when accepted).
  if (await getMemberByEmail(ctx.db, email))
    throw new ServiceError('conflict', `${email} already has an account; a person belongs to one workspace`);
  const token = newInviteToken();
  const now = ctx.now();
  const created = await ctx.db.transaction(async (tx) => {
    const made = await createWorkspaceWithOwner(ctx, tx, { email, passwordHash: null, workspaceName: name });
    await insertInvite(tx, inviteRow(made.memberId, made.memberId, token, now));
    return made;
  });
  return {
    workspaceId: created.workspaceId,
    slugs: created.slugs,
    link: `${ctx.publicAddress.origin}/#/invite/${token}`,
    expiresAt: now + INVITE_LIFETIME_MS,
  };
}
