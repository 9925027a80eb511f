/** A step-up stays fresh for 15 minutes (spec part 8). */
export const STEP_UP_WINDOW_MS = 15 * 60 * 1000;

/** Step-up = MFA enrolled and re-authenticated with it within the window. Keys never qualify. */
export function isSteppedUp(mfaEnrolled: boolean, steppedUpAt: number | null, now: number): boolean {
  return mfaEnrolled && steppedUpAt !== null && now - steppedUpAt <= STEP_UP_WINDOW_MS && steppedUpAt <= now;
}

/**
 * Operations a session of a member with MFA makes only stepped up, though the spec lets a key make them
 * (open-choices, "Step-up for account changes"): each hands out a secret or lasting access.
 */
export const STEP_UP_IF_ENROLLED: ReadonlySet<string> = new Set([
  'rotateWebhookSecret',
  'requestContact',
  'approveContact',
  'updateContact',
  'unblockContact',
  'setTrust',
  'setExposure',
  'authorizeIntegration',
]);
