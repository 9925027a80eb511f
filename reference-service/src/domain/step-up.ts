/** A step-up stays fresh for 15 minutes (spec part 8). */
export const STEP_UP_WINDOW_MS = 15 * 60 * 1000;

/** Step-up = MFA enrolled and re-authenticated with it within the window. Keys never qualify. */
export function isSteppedUp(mfaEnrolled: boolean, steppedUpAt: number | null, now: number): boolean {
  return mfaEnrolled && steppedUpAt !== null && now - steppedUpAt <= STEP_UP_WINDOW_MS && steppedUpAt <= now;
}
