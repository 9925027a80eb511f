import { randomBytes } from 'node:crypto';
import { PERMISSIONS } from '@svc-kit/contract';
import type { ServiceContext } from '../../context.js';
import { mintApiKey } from '../../domain/api-key.js';
import { ServiceError } from '../../domain/errors.js';
import { hashPassword } from '../../domain/password.js';
import { SANDBOX_WORKSPACE_ID } from '../../domain/sandbox-workspace.js';
import { generateTotpSecret } from '../../domain/totp.js';
import { peerEndpointOf, signerFor } from '../../peer/own-identity.js';
import { insertApiKey } from '../../store/queries/api-keys.js';
import { listIdentities } from '../../store/queries/identities.js';
import { getWorkspace } from '../../store/queries/workspaces.js';
import { createWorkspaceWithOwner } from '../accounts/sign-up.js';

export { SANDBOX_WORKSPACE_ID };

export const SANDBOX_MEMBER_ID = 'mem_sandbox';
export const SANDBOX_EMAIL = 'owner@sandbox.example';
export const SANDBOX_IDENTITIES = ['sandbox-alice', 'sandbox-bob'] as const;

export type SeedResult =
  | { seeded: false }
  | { seeded: true; apiKey: string; password: string; totpSecret: string };

/**
 * Creates the sandbox workspace once: an owner with every permission and MFA enrolled, two identities,
 * and an API key with every scope. The secrets are returned to be printed now; only hashes (and the
 * sealed TOTP seed) are kept. Webhooks start enabled, as on the staging environment.
 */
export async function seedSandbox(ctx: ServiceContext): Promise<SeedResult> {
  if (await getWorkspace(ctx.db, SANDBOX_WORKSPACE_ID)) return { seeded: false };
  const now = ctx.now();
  const password = randomBytes(12).toString('base64url');
  const totpSecret = generateTotpSecret();
  const key = mintApiKey();
  const passwordHash = await hashPassword(password, ctx.passwordCost);
  try {
    await ctx.db.transaction(async (tx) => {
      const owner = { email: SANDBOX_EMAIL, passwordHash, workspaceName: 'Sandbox' };
      await createWorkspaceWithOwner(ctx, tx, owner, {
        workspaceId: SANDBOX_WORKSPACE_ID,
        memberId: SANDBOX_MEMBER_ID,
        slugs: SANDBOX_IDENTITIES,
        mfaSecretEnc: ctx.secretBox.seal(totpSecret, SANDBOX_MEMBER_ID),
      });
      await insertApiKey(tx, {
        id: key.id,
        workspace_id: SANDBOX_WORKSPACE_ID,
        member_id: SANDBOX_MEMBER_ID,
        name: 'sandbox',
        secret_hash: key.secretHash,
        scopes: [...PERMISSIONS],
        created_at: now,
        revoked_at: null,
      });
    });
  } catch (error) {
    // Another instance on the same PostgreSQL database seeded first (the workspace id is taken), or an
    // account holds the sandbox's e-mail (the owner's insert answers 409): what is there stands.
    if ((error as { code?: string }).code === '23505') return { seeded: false };
    if (error instanceof ServiceError && error.code === 'conflict') return { seeded: false };
    throw error;
  }
  return { seeded: true, apiKey: key.token, password, totpSecret };
}

/** The sandbox identities' contact cards for an instance reachable at `baseUrl` (printed at start). */
export async function sandboxCards(
  ctx: ServiceContext,
  baseUrl: string,
): Promise<{ slug: string; fingerprint: string; card: string }[]> {
  const identities = await listIdentities(ctx.db, SANDBOX_WORKSPACE_ID);
  const cards = [];
  for (const identity of identities) {
    const signer = await signerFor(ctx.db, ctx.secretBox, identity, peerEndpointOf(baseUrl), ctx.now());
    cards.push({ slug: identity.slug, fingerprint: signer.fingerprint, card: signer.card });
  }
  return cards;
}
