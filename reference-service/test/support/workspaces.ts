import { newId } from '../../src/domain/ids.js';
import type { Queryable } from '../../src/store/db.js';
import { insertWorkspace } from '../../src/store/queries/workspaces.js';

/**
 * A workspace written straight to the store, webhooks on unless told otherwise, created five seconds ago
 * by default (so that endpoints made now belong to it before any event). Answers its id, a new one unless
 * told: `SANDBOX_WORKSPACE_ID` makes it the seeded sandbox's, which the delivery pace does not slow.
 */
export async function seedWorkspace(
  db: Queryable,
  options: { webhooksEnabled?: boolean; createdAt?: number; id?: string } = {},
): Promise<string> {
  const id = options.id ?? newId('ws');
  await insertWorkspace(db, {
    id,
    name: id,
    webhooks_enabled: options.webhooksEnabled ?? true,
    suspended: false,
    deletion_hold: false,
    created_at: options.createdAt ?? Date.now() - 5_000,
  });
  return id;
}
