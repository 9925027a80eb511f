import type { Queryable } from '../../store/db.js';

/**
 * Replaces a member's password hash only if it is still the one the caller checked: a password changed
 * meanwhile (another tab, another instance) is never overwritten by a stale writer.
 */
export async function replacePasswordHash(
  db: Queryable,
  memberId: string,
  checkedHash: string,
  newHash: string,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE members SET password_hash = $3
      WHERE id = $1 AND password_hash = $2 AND removed_at IS NULL RETURNING id`,
    [memberId, checkedHash, newHash],
  );
  return rows.length === 1;
}

/** Ends every session of the member but the one given; answers how many ended. */
export async function deleteOtherSessions(
  db: Queryable,
  memberId: string,
  keptSessionId: string,
): Promise<number> {
  const rows = await db.query<{ id: string }>(
    'DELETE FROM sessions WHERE member_id = $1 AND id <> $2 RETURNING id',
    [memberId, keptSessionId],
  );
  return rows.length;
}
