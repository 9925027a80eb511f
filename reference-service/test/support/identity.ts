import { newId } from '../../src/domain/ids.js';
import type { Queryable } from '../../src/store/db.js';
import { insertIdentity } from '../../src/store/queries/identities.js';

/** An identity of the workspace, written straight into the store; answers its id. */
export async function addIdentity(db: Queryable, workspaceId: string, slug: string): Promise<string> {
  const id = newId('idn');
  await insertIdentity(db, { id, workspace_id: workspaceId, slug, created_at: Date.now() });
  return id;
}
