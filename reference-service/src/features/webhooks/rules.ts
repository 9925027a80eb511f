import { budget } from '../../domain/door-limits.js';

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

/**
 * New endpoints and relay listeners of one workspace, together: 30, then one every 2 minutes (429 past it).
 * A removed one stays a row for the retention window, so creating and removing in a loop grew the endpoints
 * table, which the relay's sweep reads for every tenant, at the rate requests came. Spent in the creating
 * transaction, so a create the caps refuse costs nothing.
 */
export const ENDPOINTS_CREATED = budget(
  30,
  2 * 60_000,
  'webhook endpoints and listeners created in this workspace',
);

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
