import { randomBytes } from 'node:crypto';
import type { OutboundLimit } from '@svc-kit/contract';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { limitBucket } from '../../domain/door-limits.js';
import { ServiceError } from '../../domain/errors.js';
import { hashPassword, type PasswordCost, verifyPassword } from '../../domain/password.js';
import {
  accountOf,
  LOGIN_ACCOUNT_FAILURES,
  LOGIN_ADDRESS_FAILURES,
  LOGIN_NETWORK_FAILURES,
  LOGIN_PAIR_FAILURES,
  LOGINS_PER_ACCOUNT,
  limitedAddress,
  limitedNetwork,
  STEP_UP_FAILURES,
} from '../../domain/sign-in-limits.js';
import { STEP_UP_WINDOW_MS } from '../../domain/step-up.js';
import { matchTotpStep } from '../../domain/totp.js';
import { refuseKnownEmpty, spendGuess } from '../../http/budget-guard.js';
import { parse } from '../../http/parse.js';
import { authorize } from '../../http/policy.js';
import { acceptTotpStep, getMember, getMemberByEmail } from '../../store/queries/members.js';
import { markSteppedUp } from '../../store/queries/sessions.js';
import { isKnownAddress, rememberAddress } from '../../store/queries/sign-in-addresses.js';
import { upgradePasswordHash } from './credentials.js';
import { useRecoveryCode } from './queries.js';
import { hashRecoveryCode, normalizeEmail } from './rules.js';
import { openSession, sessionCookie } from './session.js';
import type { AccountRouteOptions } from './session-routes.js';
import { refuseCrossSiteEntry } from './session-view.js';

const dummyHashes = new Map<PasswordCost, Promise<string>>();
/**
 * A hash no password matches, computed once per cost, so a login for an unknown email costs the same
 * scrypt as one for a known email.
 */
function dummyPasswordHash(cost: PasswordCost = 'standard'): Promise<string> {
  if (!dummyHashes.has(cost)) dummyHashes.set(cost, hashPassword(randomBytes(16).toString('hex'), cost));
  return dummyHashes.get(cost)!;
}

const loginBody = z.strictObject({
  email: z.string().min(1).max(320),
  password: z.string().min(1).max(1024),
});
/** A TOTP code, or one of the single-use recovery codes issued at enrolment (features/accounts/mfa.ts). */
const stepUpBody = z.union([
  z.strictObject({ code: z.string().regex(/^[0-9]{6}$/, 'expected a 6-digit code') }),
  z.strictObject({ recovery_code: z.string().min(1).max(64) }),
]);

/**
 * The minimal portal surface the spec leaves to us (documented in this folder's README): log in and step
 * up with TOTP. Every route answers refusals with the same error body as the operations.
 */
export function registerLoginRoutes(app: FastifyInstance, { ctx }: AccountRouteOptions): void {
  app.post('/v1/sessions', async (request, reply) => {
    refuseCrossSiteEntry(ctx, request, 'a log-in');
    const body = parse(loginBody, request.body, 'body');
    const now = ctx.now();
    const address = limitedAddress(request.ip);
    const email = normalizeEmail(body.email);
    // Counted as the e-mail log-in matches it: every spelling of one mailbox (`x.example.`, the ASCII form
    // of its domain) is one account, or each would bring a fresh budget.
    const account = accountOf(email);
    const guesses: [string, OutboundLimit][] = [
      [limitBucket('login-pair', account, address), LOGIN_PAIR_FAILURES],
      [limitBucket('login-address', address), LOGIN_ADDRESS_FAILURES],
    ];
    const network = limitedNetwork(request.ip);
    if (network) guesses.push([limitBucket('login-network', network), LOGIN_NETWORK_FAILURES]);
    // A flood from an address already refused is answered before any statement.
    refuseKnownEmpty(ctx.db, guesses, now);
    if (!(await isKnownAddress(ctx.db, account, address, now))) {
      guesses.push([limitBucket('login-account', account), LOGIN_ACCOUNT_FAILURES]);
    }
    const logIns: [string, OutboundLimit][] = [[limitBucket('login', account), LOGINS_PER_ACCOUNT]];
    const giveBack = await spendGuess(ctx.db, [...guesses, ...logIns], now);
    const member = await getMemberByEmail(ctx.db, body.email, email);
    // Unknown email and wrong password are answered alike, after the same scrypt work.
    const ok = await verifyPassword(
      body.password,
      member?.password_hash ?? (await dummyPasswordHash(ctx.passwordCost)),
    ).catch(async (error: unknown) => {
      // Refused by the scrypt gate (or failed): nobody signed in, so no log-in is spent.
      await giveBack(logIns);
      throw error;
    });
    // A wrong password was a guess, and the guess buckets keep it; a right one was a log-in.
    if (!member || !ok) {
      await giveBack(logIns);
      throw new ServiceError('unauthenticated', 'wrong email or password');
    }
    await giveBack(guesses);
    if (member.password_hash !== null)
      await upgradePasswordHash(ctx.db, member.id, member.password_hash, body.password, ctx.passwordCost);
    await rememberAddress(ctx.db, account, address, now);
    const { token, expiresAt } = await openSession(ctx, member.id, false);
    reply.header('set-cookie', sessionCookie(token, expiresAt, ctx.now()));
    return reply.code(201).send({
      member_id: member.id,
      workspace_id: member.workspace_id,
      expires_at: expiresAt,
      mfa_enrolled: member.mfa_secret_enc !== null,
    });
  });

  app.post('/v1/sessions/step-up', async (request) => {
    const now = ctx.now();
    const { principal } = await authorize(ctx, request, { stepUp: false, suspended: false }, now);
    if (principal.kind !== 'session') {
      throw new ServiceError('step_up_required', 'API keys have no session and cannot step up');
    }
    const body = parse(stepUpBody, request.body, 'body');
    const member = await getMember(ctx.db, principal.memberId);
    if (!member?.mfa_secret_enc)
      throw new ServiceError('step_up_required', 'MFA is not enrolled for this member');
    // Counted per member, whatever the session: a stolen session cannot reset the count by logging in again.
    const giveBack = await spendGuess(ctx.db, [[limitBucket('step-up', member.id), STEP_UP_FAILURES]], now);
    if ('recovery_code' in body) {
      const hashed = hashRecoveryCode(member.id, body.recovery_code);
      if (!(await useRecoveryCode(ctx.db, member.id, hashed, now)))
        throw new ServiceError('step_up_required', 'the recovery code did not verify or was used before');
      request.log.info({ member_id: member.id }, 'stepped up with a recovery code');
    } else {
      const seed = ctx.secretBox.open(member.mfa_secret_enc, member.id);
      const step = matchTotpStep(seed, body.code, now);
      if (step === undefined) throw new ServiceError('step_up_required', 'the MFA code did not verify');
      if (!(await acceptTotpStep(ctx.db, member.id, step))) {
        throw new ServiceError('step_up_required', 'this MFA code was already used; wait for the next one');
      }
    }
    await giveBack();
    await markSteppedUp(ctx.db, principal.sessionId, now);
    return { stepped_up_until: now + STEP_UP_WINDOW_MS };
  });
}
