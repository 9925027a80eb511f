import { ServiceError } from '../../domain/errors.js';
import { insertRow, type Queryable } from '../../store/db.js';
import type { ApiKeyRow } from '../../store/queries/api-keys.js';
import { getMember, type MemberRow } from '../../store/queries/members.js';
import type { MemberStanding } from './rules.js';

/** A member with the columns migration 0012 added, as the portal's account routes read it. */
export interface AccountRow extends MemberRow {
  mfa_pending_enc: string | null;
  owner: boolean;
  removed_at: number | null;
}

/**
 * Inserts a member; a unique index refusing it (the e-mail is taken) is answered 409 `conflict` with
 * `taken` as the message.
 */
export async function insertAccount(
  db: Queryable,
  row: Omit<AccountRow, 'mfa_pending_enc' | 'removed_at'>,
  taken: string,
): Promise<void> {
  await insertRow(db, 'members', row).catch(conflictIfTaken(taken));
}

/** A unique index refused the statement (23505): answered 409 `conflict` with `message`. */
export function conflictIfTaken(message: string) {
  return (error: unknown): never => {
    if ((error as { code?: string }).code === '23505') throw new ServiceError('conflict', message);
    throw error;
  };
}

/** getMember's statement reads every column, the ones migration 0012 added included. */
export const getAccount = getMember as (db: Queryable, id: string) => Promise<AccountRow | undefined>;

export async function listAccounts(
  db: Queryable,
  workspaceId: string,
): Promise<(AccountRow & { invited: boolean })[]> {
  return db.query(
    `SELECT m.*, (i.member_id IS NOT NULL) AS invited
       FROM members m LEFT JOIN member_invites i ON i.member_id = m.id
      WHERE m.workspace_id = $1 AND m.removed_at IS NULL
      ORDER BY m.created_at, m.id`,
    [workspaceId],
  );
}

/** Sets the pending seed, only while the enrolled one (none: `null`) is still the one the caller saw. */
export async function setPendingMfa(
  db: Queryable,
  memberId: string,
  sealed: string,
  enrolled: string | null,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE members SET mfa_pending_enc = $2
      WHERE id = $1 AND removed_at IS NULL AND mfa_secret_enc IS NOT DISTINCT FROM $3::text RETURNING id`,
    [memberId, sealed, enrolled],
  );
  return rows.length === 1;
}

/**
 * Enrols the pending seed in place of the enrolled one (none: `null`): only if both are still the ones the
 * code was checked against, so two confirmations racing enrol once. The code's step counts as used.
 */
export async function enrolPendingMfa(
  db: Queryable,
  memberId: string,
  seeds: { pending: string; enrolled: string | null },
  sealed: string,
  step: number,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE members SET mfa_secret_enc = $3, mfa_pending_enc = NULL, totp_last_step = $4
      WHERE id = $1 AND mfa_pending_enc = $2 AND mfa_secret_enc IS NOT DISTINCT FROM $5::text
        AND removed_at IS NULL
      RETURNING id`,
    [memberId, seeds.pending, sealed, step, seeds.enrolled],
  );
  return rows.length === 1;
}

export async function replaceRecoveryCodes(
  db: Queryable,
  memberId: string,
  hashes: readonly string[],
  now: number,
): Promise<void> {
  await db.query('DELETE FROM member_recovery_codes WHERE member_id = $1', [memberId]);
  await db.query(
    `INSERT INTO member_recovery_codes (member_id, code_hash, created_at)
     SELECT $1, hash, $3 FROM unnest($2::text[]) AS hash`,
    [memberId, hashes, now],
  );
}

/** Marks an unused code used, in one statement: true once per code, whichever instance asks first. */
export async function useRecoveryCode(
  db: Queryable,
  memberId: string,
  hash: string,
  now: number,
): Promise<boolean> {
  const rows = await db.query<{ member_id: string }>(
    `UPDATE member_recovery_codes SET used_at = $3
      WHERE member_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING member_id`,
    [memberId, hash, now],
  );
  return rows.length === 1;
}

export async function deleteSession(db: Queryable, sessionId: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE id = $1', [sessionId]);
}

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

export async function insertInvite(
  db: Queryable,
  row: { member_id: string; token_hash: string; invited_by: string; created_at: number; expires_at: number },
): Promise<void> {
  await insertRow(db, 'member_invites', row);
}

/**
 * Takes a live invite by its token hash and sets the invited member's password, in one statement: the row
 * goes with the acceptance, so a token works once even when two acceptances race.
 */
export async function acceptInvite(
  db: Queryable,
  tokenHash: string,
  passwordHash: string,
  now: number,
): Promise<AccountRow | undefined> {
  const rows = await db.query<AccountRow>(
    `WITH taken AS (
       DELETE FROM member_invites i WHERE token_hash = $1 AND expires_at > $3
          AND EXISTS (SELECT 1 FROM members inviter WHERE inviter.id = i.invited_by AND inviter.removed_at IS NULL)
       RETURNING member_id
     )
     UPDATE members m SET password_hash = $2
       FROM taken WHERE m.id = taken.member_id AND m.removed_at IS NULL
     RETURNING m.*`,
    [tokenHash, passwordHash, now],
  );
  return rows[0];
}

/**
 * Removes a member: every key revoked, every session deleted, their open invite and the invites they sent
 * deleted, the permissions emptied and the row marked removed. The caller runs it in one transaction; migration 0011's triggers announce the
 * key and member changes, so cached credentials are dropped at commit.
 */
export async function removeAccount(db: Queryable, memberId: string, now: number): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE members SET removed_at = $2, permissions = '{}', mfa_pending_enc = NULL
      WHERE id = $1 AND removed_at IS NULL RETURNING id`,
    [memberId, now],
  );
  if (rows.length === 0) return false;
  await db.query('UPDATE api_keys SET revoked_at = $2 WHERE member_id = $1 AND revoked_at IS NULL', [
    memberId,
    now,
  ]);
  await db.query('DELETE FROM sessions WHERE member_id = $1', [memberId]);
  // The invites the member sent are a way back in (a second address of theirs): they go too, with the
  // rows of the people who never joined through them.
  await db.query(
    `WITH dropped AS (
       DELETE FROM member_invites WHERE member_id = $1 OR invited_by = $1 RETURNING member_id
     )
     UPDATE members SET removed_at = $2, permissions = '{}'
      WHERE id IN (SELECT member_id FROM dropped) AND id <> $1 AND password_hash IS NULL
        AND removed_at IS NULL`,
    [memberId, now],
  );
  return true;
}

export async function listKeys(db: Queryable, workspaceId: string) {
  return db.query<Omit<ApiKeyRow, 'workspace_id' | 'secret_hash'>>(
    `SELECT id, name, scopes, created_at, revoked_at, member_id FROM api_keys
      WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC`,
    [workspaceId],
  );
}

/** Who holds a key of the workspace, for the rule of revocation (a removed member's keys are revoked already). */
export async function getKeyHolder(db: Queryable, workspaceId: string, keyId: string) {
  const rows = await db.query<MemberStanding>(
    `SELECT m.id, m.owner, m.permissions FROM api_keys k JOIN members m ON m.id = k.member_id
      WHERE k.id = $1 AND k.workspace_id = $2`,
    [keyId, workspaceId],
  );
  return rows[0];
}

export async function getSessionTimes(db: Queryable, sessionId: string) {
  const rows = await db.query<{ expires_at: number; stepped_up_at: number | null }>(
    'SELECT expires_at, stepped_up_at FROM sessions WHERE id = $1',
    [sessionId],
  );
  return rows[0];
}

/** The e-mail of the member a live invite is for, without taking the invite. */
export async function findLiveInvite(db: Queryable, tokenHash: string, now: number) {
  const rows = await db.query<{ member_id: string; email: string }>(
    `SELECT i.member_id, m.email FROM member_invites i JOIN members m ON m.id = i.member_id
      WHERE i.token_hash = $1 AND i.expires_at > $2 AND m.removed_at IS NULL`,
    [tokenHash, now],
  );
  return rows[0];
}
