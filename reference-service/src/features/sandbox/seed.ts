import { randomBytes } from 'node:crypto';
import { PERMISSIONS } from '@svc-kit/contract';
import type { ServiceContext } from '../../context.js';
import { mintApiKey } from '../../domain/api-key.js';
import { ServiceError } from '../../domain/errors.js';
import { hashPassword } from '../../domain/password.js';
import { SANDBOX_WORKSPACE_ID } from '../../domain/sandbox-workspace.js';
import { generateTotpSecret } from '../../domain/totp.js';
import { signerFor } from '../../peer/own-identity.js';
import type { Queryable } from '../../store/db.js';
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
  const passwordHash = await hashPassword(password, ctx.passwordCost);
  try {
    const key = await ctx.db.transaction(async (tx) => {
      const owner = { email: SANDBOX_EMAIL, passwordHash, workspaceName: 'Sandbox' };
      await createWorkspaceWithOwner(ctx, tx, owner, {
        workspaceId: SANDBOX_WORKSPACE_ID,
        memberId: SANDBOX_MEMBER_ID,
        slugs: SANDBOX_IDENTITIES,
        mfaSecretEnc: ctx.secretBox.seal(totpSecret, SANDBOX_MEMBER_ID),
      });
      return insertSandboxKey(tx, 'sandbox', [...PERMISSIONS], now);
    });
    return { seeded: true, apiKey: key.token, password, totpSecret };
  } catch (error) {
    // Another instance on the same PostgreSQL database seeded first (the workspace id is taken), or an
    // account holds the sandbox's e-mail (the owner's insert answers 409): what is there stands.
    if ((error as { code?: string }).code === '23505') return { seeded: false };
    if (error instanceof ServiceError && error.code === 'conflict') return { seeded: false };
    throw error;
  }
}

/** A new API key of the sandbox owner, stored as its hash; its token is shown once. */
export async function insertSandboxKey(db: Queryable, name: string, scopes: string[], now: number) {
  const key = mintApiKey();
  await insertApiKey(db, {
    id: key.id,
    workspace_id: SANDBOX_WORKSPACE_ID,
    member_id: SANDBOX_MEMBER_ID,
    name,
    secret_hash: key.secretHash,
    scopes,
    created_at: now,
    revoked_at: null,
  });
  return key;
}

/** The sandbox identities' contact cards at this instance's public address (printed at start). */
export async function sandboxCards(ctx: ServiceContext) {
  const cards = [];
  for (const identity of await listIdentities(ctx.db, SANDBOX_WORKSPACE_ID)) {
    const { peerEndpoint } = ctx.publicAddress;
    const { fingerprint, card } = await signerFor(ctx.db, ctx.secretBox, identity, peerEndpoint, ctx.now());
    cards.push({ slug: identity.slug, fingerprint, card });
  }
  return cards;
}
