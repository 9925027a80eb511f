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
  /**
   * The `auth_version`s of the key, its member and its workspace (migration 0014), joined by dots: every
   * write of one of the three rows gives it a number never given before, so equal versions mean rows
   * unchanged since they were read.
   */
  version: string;
}

const VERSION = `concat_ws('.', k.auth_version, m.auth_version, w.auth_version)`;
const KEY_JOIN = `FROM api_keys k
       JOIN members m ON m.id = k.member_id AND m.removed_at IS NULL
       JOIN workspaces w ON w.id = k.workspace_id`;

/**
 * A statement that answers one row when the key `$<keyParam>` and its member and workspace are unchanged
 * since they were read at the version `$<versionParam>` and the key is not revoked, and none otherwise:
 * three primary-key lookups.
 */
export function keyUnchangedSql(keyParam: number, versionParam: number): string {
  return `SELECT true AS svc_key_unchanged ${KEY_JOIN}
           WHERE k.id = $${keyParam} AND k.revoked_at IS NULL AND ${VERSION} = $${versionParam}`;
}

/**
 * Where a statement that writes can carry the key check itself (store/key-checked.ts): placed as one more
 * condition of its only write, it is `true` wherever the statement runs unchecked, and on a connection
 * that confirms a held key it becomes the check. A check that fails then writes nothing, so the call can
 * be run again from a fresh read. Only for a statement whose every write it guards and whose every row
 * answered comes from that write: an answer is taken as the key's confirmation.
 */
export const KEY_CHECK_SLOT = 'true /* svc:key-check */';

/**
 * The key, its member and its workspace in one statement (one round trip instead of three). No row when
 * any of the three is missing: the caller answers that as an unknown key.
 */
export async function getKeyPrincipal(db: Queryable, keyId: string): Promise<KeyPrincipalRow | undefined> {
  const rows = await db.query<KeyPrincipalRow>(
    `SELECT k.id, k.workspace_id, k.member_id, k.secret_hash, k.scopes, k.revoked_at,
            m.workspace_id AS member_workspace_id, m.permissions AS member_permissions,
            to_jsonb(w) - 'auth_version' AS workspace, ${VERSION} AS version
       ${KEY_JOIN}
      WHERE k.id = $1`,
    [keyId],
  );
  return rows[0];
}
