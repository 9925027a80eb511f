import type { WebhookEndpoint } from '../resources/webhooks.js';

/** Spec 4.1 and part 8: the rotated-out secret keeps verifying for 24 hours. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * What a rotation does to the secret it replaces. Outside an overlap, the current secret becomes the
 * previous one for 24 hours. During an overlap (a second rotation within 24 hours) the previous secret,
 * the one receivers had before the first rotation, stays until the end of that first overlap, and the
 * secret being replaced (shown once by the first rotation) is dropped: the signature header carries at
 * most two `v1` values (spec 6.3) and the original secret still gets its full 24 hours (spec 4.1).
 */
export function rotationOutcome(
  rotatingUntil: number | null,
  now: number,
): { keep: 'current' | 'previous'; previousAcceptedUntil: number } {
  if (rotatingUntil !== null && rotatingUntil > now) {
    return { keep: 'previous', previousAcceptedUntil: rotatingUntil };
  }
  return { keep: 'current', previousAcceptedUntil: now + ROTATION_OVERLAP_MS };
}

/**
 * The record as the API shows it at `now`: `rotating_until` is kept as set, and reads null once the
 * overlap is over (the rotated-out secret no longer verifies then).
 */
export function endpointAsShown(stored: WebhookEndpoint, now: number): WebhookEndpoint {
  const until = stored.rotating_until;
  return {
    ...stored,
    events: [...stored.events],
    rotating_until: until !== null && until > now ? until : null,
  };
}

/**
 * Live webhook endpoints one workspace may have (relay listeners are counted apart). Every event, the
 * sandbox's test events included, fans out one POST per endpoint: without a cap a workspace turns one
 * request into hundreds of outbound ones to whatever host it names.
 */
export const MAX_WEBHOOK_ENDPOINTS = 20;

/** The words of the refusal (403 `forbidden`) when a workspace already has its endpoints. */
export function endpointCapRefusal(live: number): string | undefined {
  if (live < MAX_WEBHOOK_ENDPOINTS) return undefined;
  return `a workspace may have ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints; delete one before creating another`;
}
