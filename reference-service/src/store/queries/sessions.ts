import { insertRow, type Queryable } from '../db.js';

export interface SessionRow {
  id: string;
  member_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  stepped_up_at: number | null;
}

export async function insertSession(db: Queryable, row: SessionRow): Promise<void> {
  await insertRow(db, 'sessions', row);
}

export async function findLiveSession(
  db: Queryable,
  tokenHash: string,
  now: number,
): Promise<SessionRow | undefined> {
  const rows = await db.query<SessionRow>(
    'SELECT * FROM sessions WHERE token_hash = $1 AND expires_at > $2',
    [tokenHash, now],
  );
  return rows[0];
}

export async function markSteppedUp(db: Queryable, sessionId: string, at: number): Promise<void> {
  await db.query('UPDATE sessions SET stepped_up_at = $2 WHERE id = $1', [sessionId, at]);
}

/** Locks the member's row until the end of the transaction: opening its sessions takes turns. */
export async function lockMemberSessions(tx: Queryable, memberId: string): Promise<void> {
  await tx.query('SELECT id FROM members WHERE id = $1 FOR UPDATE', [memberId]);
}

/**
 * Ends the member's sessions beyond the `keep` newest (the one named always kept) and those expired. Run
 * after the insert, in its transaction, with the member locked (`lockMemberSessions`).
 */
export async function endOldSessions(
  db: Queryable,
  memberId: string,
  keptId: string,
  keep: number,
  now: number,
): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `DELETE FROM sessions WHERE member_id = $1 AND id <> $2
        AND (expires_at <= $4 OR id NOT IN (
          SELECT id FROM sessions WHERE member_id = $1 AND id <> $2 AND expires_at > $4
           ORDER BY created_at DESC, id DESC LIMIT $3))
     RETURNING id`,
    [memberId, keptId, keep - 1, now],
  );
  return rows.length;
}
