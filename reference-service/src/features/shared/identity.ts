import { ServiceError } from '../../domain/errors.js';
import type { Queryable } from '../../store/db.js';
import { findIdentityBySlug } from '../../store/queries/identity-keys.js';

/** An identity of a workspace, as the features that act for one (contacts, integrations) hold it. */
export type Identity = { id: string; workspace_id: string; slug: string };

/** The workspace's identity `slug`; 404 when it has none. */
export async function identityOf(db: Queryable, workspaceId: string, slug: string): Promise<Identity> {
  const identity = await findIdentityBySlug(db, workspaceId, slug);
  if (!identity) throw new ServiceError('not_found', 'no such identity');
  return identity;
}

/** An operation's handler for the identity of its path, found in the caller's workspace before it runs. */
export function forIdentity<
  C extends { db: Queryable; workspace: { id: string }; params: { slug: string } },
  R,
>(run: (call: C, identity: Identity) => Promise<R>): (call: C) => Promise<R> {
  return async (call) => run(call, await identityOf(call.db, call.workspace.id, call.params.slug));
}
