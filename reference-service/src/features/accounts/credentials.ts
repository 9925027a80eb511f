import type { ServiceContext } from '../../context.js';
import { limitBucket } from '../../domain/door-limits.js';
import { ServiceError } from '../../domain/errors.js';
import { hashPassword, needsRehash, type PasswordCost, verifyPassword } from '../../domain/password.js';
import { spendBudget } from '../../http/budget-guard.js';
import type { Queryable } from '../../store/db.js';
import { passwordProblem } from './password-policy.js';
import {
  type AccountRow,
  deleteOtherSessions,
  replacePasswordHash,
  replaceRecoveryCodes,
} from './queries.js';
import { newRecoveryCodes, PASSWORD_CHANGES } from './rules.js';

/**
 * Changes the signed-in member's password. The current one is a guessable secret even behind a session
 * (a borrowed laptop), and every try costs two scrypt runs, so each one spends the member's own budget,
 * kept in the database like the log-in and step-up budgets, whichever instance answers, and never given
 * back. Every other session of the member ends with the change: whoever learnt the old password is signed
 * out; the session that asked stays.
 */
export async function changePassword(
  ctx: ServiceContext,
  member: AccountRow,
  sessionId: string,
  input: { current_password: string; new_password: string },
): Promise<{ sessions_ended: number }> {
  const problem = passwordProblem(input.new_password, member.email);
  if (problem) throw new ServiceError('invalid_request', `invalid body: new_password: ${problem}`);
  if (input.new_password === input.current_password)
    throw new ServiceError('invalid_request', 'invalid body: the new password is the current one');
  const stored = member.password_hash;
  await spendBudget(ctx.db, limitBucket('password-change', member.id), PASSWORD_CHANGES, ctx.now());
  if (stored === null || !(await verifyPassword(input.current_password, stored)))
    throw new ServiceError('forbidden', 'the current password is not right');
  const newHash = await hashPassword(input.new_password, ctx.passwordCost);
  const ended = await ctx.db.transaction(async (tx) => {
    if (!(await replacePasswordHash(tx, member.id, stored, newHash))) return undefined;
    return deleteOtherSessions(tx, member.id, sessionId);
  });
  if (ended === undefined)
    throw new ServiceError('conflict', 'the password was changed meanwhile; sign in again with the new one');
  return { sessions_ended: ended };
}

/**
 * New recovery codes for a member whose session is stepped up: the old ones stop working in the same
 * transaction, the new ones are answered once and kept as hashes only.
 */
export async function regenerateRecoveryCodes(
  ctx: ServiceContext,
  member: AccountRow,
): Promise<{ recovery_codes: string[] }> {
  if (member.mfa_secret_enc === null)
    throw new ServiceError('conflict', 'MFA is not enrolled; recovery codes come with the enrolment');
  const { codes, hashes } = newRecoveryCodes(member.id);
  const now = ctx.now();
  await ctx.db.transaction((tx) => replaceRecoveryCodes(tx, member.id, hashes, now));
  return { recovery_codes: codes };
}

/**
 * After a successful log-in, a hash written with an older (cheaper) cost is replaced by one at today's
 * cost: the plain password is at hand only now. Done before the answer, not in the background: the extra
 * scrypt (about 0.1 s, once per member) lands on a log-in that already succeeded, which the answer tells
 * anyway, so the timing says nothing new; failed log-ins, whose timing must not tell a known e-mail from
 * an unknown one, never rehash. A background write could also outlive the process or race a password
 * change; the conditional update below never overwrites a newer hash.
 */
export async function upgradePasswordHash(
  db: Queryable,
  memberId: string,
  stored: string,
  password: string,
  cost: PasswordCost | undefined,
): Promise<boolean> {
  if (!needsRehash(stored, cost)) return false;
  return replacePasswordHash(db, memberId, stored, await hashPassword(password, cost));
}
