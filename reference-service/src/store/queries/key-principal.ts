import type { Queryable } from '../db.js';
import type { WorkspaceRow } from './workspaces.js';

/** A key with what authorizing a call needs of its member and workspace. */
export interface KeyPrincipalRow {
  id: string;
  workspace_id: string;
  member_id: string;
  secret_hash: string;
  scopes: string[];
  revoked_at: number | null;
  member_workspace_id: string;
  member_permissions: string[];
  workspace: WorkspaceRow;
}

/**
 * The key, its member and its workspace in one statement (one round trip instead of three). No row when
 * any of the three is missing: the caller answers that as an unknown key.
 */
export async function getKeyPrincipal(db: Queryable, keyId: string): Promise<KeyPrincipalRow | undefined> {
  const rows = await db.query<KeyPrincipalRow>(
    `SELECT k.id, k.workspace_id, k.member_id, k.secret_hash, k.scopes, k.revoked_at,
            m.workspace_id AS member_workspace_id, m.permissions AS member_permissions,
            to_jsonb(w) - 'auth_version' AS workspace
       FROM api_keys k
       JOIN members m ON m.id = k.member_id AND m.removed_at IS NULL
       JOIN workspaces w ON w.id = k.workspace_id
      WHERE k.id = $1`,
    [keyId],
  );
  return rows[0];
}
