/**
 * The webhook endpoint rules of spec 3.1 and 4.1 that need no I/O. Two live where their statement is:
 * - the pause: `FAILURES_BEFORE_PAUSE` failed deliveries in a row pause an endpoint. The statement
 *   that logs an attempt counts the run and pauses in the same write (`recordAttempt`,
 *   store/queries/deliveries-claim.ts); a success clears the run;
 * - the status change: resuming keeps the failure run short of the pause (the contract's
 *   `resumedFailureRun`), pausing stops the workers' held deliveries, in one statement of
 *   store/queries/webhook-endpoints.ts, atomic with the listing it answers.
 * The URL rules that need DNS are in domain/url-policy.ts.
 */

/** Random bytes in a signing secret: 256 bits. */
export const SIGNING_SECRET_BYTES = 32;

/** A signing secret's shape: `whsec_` then its random bytes in base64url (shown once, stored sealed). */
export function signingSecretOf(random: Uint8Array): string {
  return `whsec_${Buffer.from(random).toString('base64url')}`;
}

/** An event filter is a set: repeats add nothing, and a stable order makes records comparable. */
export function eventFilter(events: readonly string[]): string[] {
  return [...new Set(events)];
}
