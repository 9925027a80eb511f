import { newId } from '../../src/domain/ids.js';
import type { Queryable } from '../../src/store/db.js';
import { insertWorkspace } from '../../src/store/queries/workspaces.js';

/** A workspace with webhooks on, created a few seconds ago (so that endpoints made now are in it). */
export async function benchWorkspace(db: Queryable): Promise<string> {
  const id = newId('ws');
  await insertWorkspace(db, {
    id,
    name: 'bench',
    webhooks_enabled: true,
    suspended: false,
    deletion_hold: false,
    created_at: Date.now() - 5_000,
  });
  return id;
}
