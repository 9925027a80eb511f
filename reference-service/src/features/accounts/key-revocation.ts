import { ServiceError } from '../../domain/errors.js';
import type { Queryable } from '../../store/db.js';
import { keyRevocationRefusal, type MemberStanding } from './rules.js';

/**
 * Refuses (403) a revocation the actor's standing does not allow; an unknown key of the workspace passes,
 * so the caller answers it 404 as before. A removed member's keys are already revoked.
 */
export async function checkKeyRevocation(
  db: Queryable,
  workspaceId: string,
  actorId: string,
  keyId: string,
): Promise<void> {
  const rows = await db.query<MemberStanding & { who: 'actor' | 'holder' }>(
    `SELECT 'actor' AS who, id, owner, permissions FROM members WHERE id = $1
     UNION ALL
     SELECT 'holder', m.id, m.owner, m.permissions
       FROM api_keys k JOIN members m ON m.id = k.member_id WHERE k.id = $2 AND k.workspace_id = $3`,
    [actorId, keyId, workspaceId],
  );
  const actor = rows.find((row) => row.who === 'actor');
  const holder = rows.find((row) => row.who === 'holder');
  if (!actor || !holder) return;
  const refusal = keyRevocationRefusal(actor, holder);
  if (refusal) throw new ServiceError('forbidden', refusal);
}
