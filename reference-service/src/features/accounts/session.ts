import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../context.js';
import { newId } from '../../domain/ids.js';
import { SESSIONS_PER_MEMBER } from '../../domain/sign-in-limits.js';
import { hashSessionToken, SESSION_COOKIE } from '../../http/principal.js';
import { endOldSessions, insertSession, lockMemberSessions } from '../../store/queries/sessions.js';

/** Portal sessions last 12 hours; a step-up inside one lasts 15 minutes. */
const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

/** Opens a session and returns the cookie value; shared with the sandbox CLI. At most SESSIONS_PER_MEMBER stay. */
export async function openSession(
  ctx: ServiceContext,
  memberId: string,
  steppedUp: boolean,
): Promise<{ id: string; token: string; expiresAt: number }> {
  const now = ctx.now();
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + SESSION_LIFETIME_MS;
  const id = newId('ses');
  // The member's log-ins take turns (its row locked), so each sees the others' sessions and the cap holds
  // exactly. The oldest goes, never the new one: a person on a new device is not locked out by forgotten
  // sessions.
  await ctx.db.transaction(async (tx) => {
    await lockMemberSessions(tx, memberId);
    await insertSession(tx, {
      id,
      member_id: memberId,
      token_hash: hashSessionToken(token),
      created_at: now,
      expires_at: expiresAt,
      stepped_up_at: steppedUp ? now : null,
    });
    await endOldSessions(tx, memberId, id, SESSIONS_PER_MEMBER, now);
  });
  return { id, token, expiresAt };
}

export function sessionCookie(token: string, expiresAt: number, now: number): string {
  const maxAge = Math.max(0, Math.floor((expiresAt - now) / 1000));
  // __Host- requires Secure, Path=/ and no Domain: the cookie is bound to this exact origin.
  return `${SESSION_COOKIE}=${token}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=${maxAge}`;
}
