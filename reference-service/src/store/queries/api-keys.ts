import type { Queryable } from '../db.js';

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
  await db.query(
    `INSERT INTO api_keys (id, workspace_id, member_id, name, secret_hash, scopes, created_at, revoked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      row.id,
      row.workspace_id,
      row.member_id,
      row.name,
      row.secret_hash,
      row.scopes,
      row.created_at,
      row.revoked_at,
    ],
  );
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
