import type { OutboundLimit } from '@svc-kit/contract';

/**
 * Budgets of the doors a stranger can open without an account (the peer protocol, the OAuth callback),
 * kept as token buckets in the database like the sign-in limits, so that they hold across instances and
 * restarts. The numbers and their reasons are on the open-choices page.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Every `/peer/v1` call from one client address, counted first: wide, as one peer instance calls for all the
 * identities it hosts; the per-identity budgets below bound each identity.
 */
export const PEER_CALLS_PER_ADDRESS: OutboundLimit = {
  capacity: 120,
  perMs: 2 / SECOND,
  what: 'peer calls from this address',
};

export const PEER_CALLS_PER_IDENTITY: OutboundLimit = {
  capacity: 60,
  perMs: 5 / SECOND,
  what: 'peer calls to this identity',
};

export const STRANGER_CALLS_PER_IDENTITY: OutboundLimit = {
  capacity: 20,
  perMs: 20 / HOUR,
  what: 'calls to this identity from parties that are not its contacts',
};

/** Contact requests one identity can hold unanswered; a request beyond it is refused, nothing is evicted. */
export const PENDING_REQUESTS_CAP = 100;

/** What a request refused by the cap is told to wait: the owner answers requests by hand. */
export const PENDING_FULL_RETRY_SECONDS = 3_600;

/** OAuth callbacks from one address whose `state` names no waiting authorization (a guess or a replay). */
export const OAUTH_STATE_GUESSES: OutboundLimit = {
  capacity: 10,
  perMs: 1 / MINUTE,
  what: 'OAuth callbacks with an unknown state from this address',
};
