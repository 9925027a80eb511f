import { insertRow, type Queryable } from '../db.js';

export interface MemberRow {
  id: string;
  workspace_id: string;
  email: string;
  password_hash: string | null;
  permissions: string[];
  mfa_secret_enc: string | null;
  created_at: number;
}

export async function insertMember(db: Queryable, row: MemberRow): Promise<void> {
  await insertRow(db, 'members', row);
}

/**
 * A member not removed (migration 0012), by e-mail as typed, trimmed and lower-cased, or in the portal's
 * `normalized` form (NFKC too). Only members who can sign in: an invited member without a password yet does
 * not hold the e-mail (migration 0013), and several invites may name it.
 */
export async function getMemberByEmail(
  db: Queryable,
  email: string,
  normalized = email,
): Promise<MemberRow | undefined> {
  const rows = await db.query<MemberRow>(
    `SELECT * FROM members
      WHERE email IN ($1, lower(btrim($1)), $2) AND removed_at IS NULL AND password_hash IS NOT NULL
      ORDER BY (email = $1) DESC LIMIT 1`,
    [email, normalized],
  );
  return rows[0];
}

/** A member not removed: a removed member's sessions and keys are gone, and this refuses them once more. */
export async function getMember(db: Queryable, id: string): Promise<MemberRow | undefined> {
  const rows = await db.query<MemberRow>('SELECT * FROM members WHERE id = $1 AND removed_at IS NULL', [id]);
  return rows[0];
}

/**
 * Records `step` as the member's last accepted TOTP step if later than the one recorded; false for a step
 * already used (a replay). One statement, so two instances cannot both accept.
 */
export async function acceptTotpStep(db: Queryable, memberId: string, step: number): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE members SET totp_last_step = $2
     WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id`,
    [memberId, step],
  );
  return rows.length === 1;
}
