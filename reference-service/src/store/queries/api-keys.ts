import { insertRow, type Queryable } from '../db.js';

export interface ApiKeyRow {
  id: string;
  workspace_id: string;
  member_id: string;
  name: string;
  secret_hash: string;
  scopes: string[];
  created_at: number;
  revoked_at: number | null;
}

export async function insertApiKey(db: Queryable, row: ApiKeyRow): Promise<void> {
  await insertRow(db, 'api_keys', row);
}

export async function revokeApiKey(
  db: Queryable,
  workspaceId: string,
  id: string,
  at: number,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    'UPDATE api_keys SET revoked_at = $3 WHERE workspace_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING id',
    [workspaceId, id, at],
  );
  return rows.length === 1;
}
