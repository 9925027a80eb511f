import type { ErrorCode } from '@svc-kit/contract';

/**
 * Why a workspace refuses operations flagged `suspended`, if it does. Deletion hold is named first when
 * both apply: it is the state the owner must act on before anything else.
 */
export function workspaceRefusal(workspace: {
  suspended: boolean;
  deletion_hold: boolean;
}): Extract<ErrorCode, 'workspace_suspended' | 'workspace_deletion_hold'> | undefined {
  if (workspace.deletion_hold) return 'workspace_deletion_hold';
  if (workspace.suspended) return 'workspace_suspended';
  return undefined;
}
