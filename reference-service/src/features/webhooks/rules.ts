import { endpointCapRefusal, ROTATION_OVERLAP_MS } from '@svc-kit/contract';

/**
 * The webhook endpoint rules of spec 3.1 and 4.1 that need no I/O. The URL rules that need DNS are in
 * domain/url-policy.ts; the status change (resuming clears the failure count, pausing stops the workers'
 * held deliveries) is one statement of store/queries/webhook-endpoints.ts, as it must be atomic with the
 * listing it answers.
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

/** Until when a rotation started at `now` keeps the replaced secret verifying. */
export function rotationEndsAt(now: number): number {
  return now + ROTATION_OVERLAP_MS;
}

/** Refused (403 `forbidden`) when the workspace already has the most live endpoints it may have. */
export function capRefusal(live: number): { code: 'forbidden'; message: string } | undefined {
  const message = endpointCapRefusal(live);
  return message === undefined ? undefined : { code: 'forbidden', message };
}
