import { insertRow, type Queryable } from '../db.js';

export interface WorkspaceRow {
  id: string;
  name: string;
  webhooks_enabled: boolean;
  suspended: boolean;
  deletion_hold: boolean;
  created_at: number;
}

export async function insertWorkspace(db: Queryable, row: WorkspaceRow): Promise<void> {
  await insertRow(db, 'workspaces', row);
}

export async function getWorkspace(db: Queryable, id: string): Promise<WorkspaceRow | undefined> {
  const rows = await db.query<WorkspaceRow>('SELECT * FROM workspaces WHERE id = $1', [id]);
  return rows[0];
}

export type WorkspaceFlag = 'webhooks_enabled' | 'suspended' | 'deletion_hold';

/** The column name comes from the closed `WorkspaceFlag` union, never from input. */
export async function setWorkspaceFlag(
  db: Queryable,
  id: string,
  flag: WorkspaceFlag,
  value: boolean,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE workspaces SET ${flag} = $2 WHERE id = $1 RETURNING id`,
    [id, value],
  );
  return rows.length === 1;
}
