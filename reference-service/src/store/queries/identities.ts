import { insertRow, type Queryable } from '../db.js';

export interface IdentityRow {
  id: string;
  workspace_id: string;
  slug: string;
  created_at: number;
}

export async function insertIdentity(db: Queryable, row: IdentityRow): Promise<void> {
  await insertRow(db, 'identities', row);
}

export async function listIdentities(db: Queryable, workspaceId: string): Promise<IdentityRow[]> {
  return db.query<IdentityRow>('SELECT * FROM identities WHERE workspace_id = $1 ORDER BY slug', [
    workspaceId,
  ]);
}
