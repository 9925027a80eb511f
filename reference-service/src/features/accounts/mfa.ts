import QRCode from 'qrcode';
import type { ServiceContext } from '../../context.js';
import { limitBucket } from '../../domain/door-limits.js';
import { ServiceError } from '../../domain/errors.js';
import { STEP_UP_FAILURES } from '../../domain/sign-in-limits.js';
import { STEP_UP_WINDOW_MS } from '../../domain/step-up.js';
import { generateTotpSecret, matchTotpStep } from '../../domain/totp.js';
import { spendGuess } from '../../http/budget-guard.js';
import { markSteppedUp } from '../../store/queries/sessions.js';
import { type AccountRow, enrolPendingMfa, replaceRecoveryCodes, setPendingMfa } from './queries.js';
import { newRecoveryCodes } from './rules.js';

/** The pending seed is sealed bound to another record name than the enrolled one: neither opens as the other. */
const pendingBinding = (memberId: string) => `${memberId}:pending-mfa`;

/** The `otpauth://` URI every authenticator app reads (RFC 6238 defaults, written out for the picky ones). */
function otpauthUri(issuer: string, account: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: '6', period: '30' });
  return `otpauth://totp/${label}?${query.toString().replace(/\+/g, '%20')}`;
}

/**
 * Offers a new TOTP seed: kept sealed as pending until a first code confirms it; a second call replaces
 * it. For a member with MFA it is the way to a new authenticator (the route asks a fresh step-up first,
 * which a recovery code gives when the old device is lost); the enrolled seed works until the new one is
 * confirmed. The QR code is drawn here, as SVG text, so that the portal loads nothing.
 */
export async function startEnrolment(ctx: ServiceContext, member: AccountRow) {
  const secret = generateTotpSecret();
  const sealed = ctx.secretBox.seal(secret, pendingBinding(member.id));
  if (!(await setPendingMfa(ctx.db, member.id, sealed, member.mfa_secret_enc)))
    throw new ServiceError('conflict', 'the MFA enrolment changed meanwhile; start again');
  const issuer = `svc-kit ${new URL(ctx.publicAddress.origin).host}`;
  const uri = otpauthUri(issuer, member.email, secret);
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { otpauth_uri: uri, secret, qr_svg: svg };
}

/**
 * Confirms the pending seed with a first code (counted with the member's step-up guesses), enrols it (in
 * place of the old one, if any), issues new recovery codes (answered once, stored hashed; the old ones
 * stop working) and steps this session up.
 */
export async function confirmEnrolment(
  ctx: ServiceContext,
  member: AccountRow,
  sessionId: string,
  code: string,
): Promise<{ recovery_codes: string[]; stepped_up_until: number }> {
  const pending = member.mfa_pending_enc;
  if (pending === null)
    throw new ServiceError('conflict', 'no MFA enrolment was started; POST /v1/session/mfa first');
  const now = ctx.now();
  const giveBack = await spendGuess(ctx.db, [[limitBucket('step-up', member.id), STEP_UP_FAILURES]], now);
  const secret = ctx.secretBox.open(pending, pendingBinding(member.id));
  const step = matchTotpStep(secret, code, now);
  if (step === undefined)
    throw new ServiceError(
      'invalid_request',
      'the code does not match the new secret; check the phone’s clock and enter the current code',
    );
  const { codes, hashes } = newRecoveryCodes(member.id);
  const enrolled = await ctx.db.transaction(async (tx) => {
    const seeds = { pending, enrolled: member.mfa_secret_enc };
    if (!(await enrolPendingMfa(tx, member.id, seeds, ctx.secretBox.seal(secret, member.id), step)))
      return false;
    await replaceRecoveryCodes(tx, member.id, hashes, now);
    await markSteppedUp(tx, sessionId, now);
    return true;
  });
  if (!enrolled)
    throw new ServiceError(
      'conflict',
      'the enrolment changed meanwhile (another confirmation or a new secret)',
    );
  await giveBack();
  return { recovery_codes: codes, stepped_up_until: now + STEP_UP_WINDOW_MS };
}
