import type { Queryable } from '../db.js';

export interface IdentityRow {
  id: string;
  workspace_id: string;
  slug: string;
  created_at: number;
}

export async function insertIdentity(db: Queryable, row: IdentityRow): Promise<void> {
  await db.query('INSERT INTO identities (id, workspace_id, slug, created_at) VALUES ($1, $2, $3, $4)', [
    row.id,
    row.workspace_id,
    row.slug,
    row.created_at,
  ]);
}

export async function listIdentities(db: Queryable, workspaceId: string): Promise<IdentityRow[]> {
  return db.query<IdentityRow>('SELECT * FROM identities WHERE workspace_id = $1 ORDER BY slug', [
    workspaceId,
  ]);
}
