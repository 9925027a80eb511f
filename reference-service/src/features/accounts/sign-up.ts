import { PERMISSIONS } from '@svc-kit/contract';
import type { ServiceContext } from '../../context.js';
import { newId } from '../../domain/ids.js';
import { ensureIdentityKey } from '../../peer/own-identity.js';
import type { Queryable } from '../../store/db.js';
import { insertIdentity } from '../../store/queries/identities.js';
import { insertWorkspace } from '../../store/queries/workspaces.js';
import { insertAccount } from './queries.js';
import { identitySlugsFor, workspaceNameFor } from './rules.js';

/**
 * A workspace with its owner (every permission) and two identities with their key pairs, in the caller's
 * transaction. Webhooks start enabled, as on the staging environment the sandbox stands for. An e-mail in
 * use answers 409 `conflict` (decided on the open-choices page); the unique index decides, so two
 * sign-ups racing for one e-mail create one account.
 */
export async function createWorkspaceWithOwner(
  ctx: ServiceContext,
  tx: Queryable,
  input: { email: string; passwordHash: string | null; workspaceName: string | undefined },
  /** The seeded sandbox's: its fixed ids and slugs, and its owner's MFA enrolled. */
  sandbox?: { workspaceId: string; memberId: string; slugs: readonly string[]; mfaSecretEnc: string },
) {
  const now = ctx.now();
  const workspaceId = sandbox?.workspaceId ?? newId('ws');
  const memberId = sandbox?.memberId ?? newId('mem');
  const name = workspaceNameFor(input.workspaceName);
  await insertWorkspace(tx, {
    id: workspaceId,
    name,
    webhooks_enabled: true,
    suspended: false,
    deletion_hold: false,
    created_at: now,
  });
  const account = {
    id: memberId,
    workspace_id: workspaceId,
    email: input.email,
    password_hash: input.passwordHash,
    permissions: [...PERMISSIONS],
    mfa_secret_enc: sandbox?.mfaSecretEnc ?? null,
    owner: true,
    created_at: now,
  };
  await insertAccount(tx, account, 'an account with this e-mail already exists; sign in instead');
  const slugs = sandbox ? [...sandbox.slugs] : identitySlugsFor(name);
  for (const slug of slugs) {
    const id = newId('idn');
    await insertIdentity(tx, { id, workspace_id: workspaceId, slug, created_at: now });
    // Each identity gets its Ed25519 key pair now; its card is issued when the endpoint is known.
    await ensureIdentityKey(tx, ctx.secretBox, id, now);
  }
  return { workspaceId, memberId, slugs };
}
