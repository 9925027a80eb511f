import { hash } from 'node:crypto';
import type { OutboundLimit } from '@svc-kit/contract';

/**
 * Budgets of the doors a stranger can open without an account (the peer protocol, the OAuth callback),
 * kept as token buckets in the database like the sign-in limits, so that they hold across instances and
 * restarts. The numbers and their reasons are on the open-choices page.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/**
 * The name of the bucket a budget is kept in: what it counts, hashed, so that no e-mail or address sits in
 * the budgets table as text. The `guess:` prefix dates from when only sign-in guesses were counted; it is
 * kept so that buckets already in the table carry on.
 */
export function limitBucket(kind: string, ...parts: string[]): string {
  return `guess:${kind}:${hash('sha256', parts.join('\n'))}`;
}

/** A bucket of `capacity` tokens that refills by one every `everyMs`: the one shape every limit is written in. */
export function budget(capacity: number, everyMs: number, what: string): OutboundLimit {
  return { capacity, perMs: 1 / everyMs, what };
}

/**
 * Every `/peer/v1` call from one client address, counted first: wide, as one peer instance calls for all the
 * identities it hosts; the per-identity budgets below bound each identity.
 */
export const PEER_CALLS_PER_ADDRESS = budget(120, SECOND / 2, 'peer calls from this address');

export const PEER_CALLS_PER_IDENTITY = budget(60, SECOND / 5, 'peer calls to this identity');

export const STRANGER_CALLS_PER_IDENTITY = budget(
  20,
  3 * MINUTE,
  'calls to this identity from parties that are not its contacts',
);

/** Contact requests one identity can hold unanswered; a request beyond it is refused, nothing is evicted. */
export const PENDING_REQUESTS_CAP = 100;

/** What a request refused by the cap is told to wait: the owner answers requests by hand. */
export const PENDING_FULL_RETRY_SECONDS = 3_600;

/** OAuth callbacks from one address whose `state` names no waiting authorization (a guess or a replay). */
export const OAUTH_STATE_GUESSES = budget(
  10,
  MINUTE,
  'OAuth callbacks with an unknown state from this address',
);

/**
 * New `Idempotency-Key`s of one workspace: 2,000, then one a second. Each is a row kept for its 24-hour
 * window with the first answer in it, so without a bound a tenant's calls (a refusal is remembered too) grew
 * the store at the rate they came; with it a workspace keeps at most about 90,000.
 */
export const IDEMPOTENCY_KEYS_KEPT = budget(2_000, SECOND, 'new Idempotency-Keys in this workspace');
