import type { WebhookEndpoint } from '../resources/webhooks.js';
import type { OutboundLimit } from './contacts.js';
import { FAILURES_BEFORE_PAUSE } from './delivery.js';
import { LOCAL_WEBHOOK_HOSTS } from './webhook-url.js';

/**
 * New endpoints and relay listeners of one workspace, together (our choice; the spec leaves inbound rates
 * open): 30, then one every 2 minutes, 429 past it. A removed endpoint stays a row for the retention
 * window, so creating and removing in a loop grew the endpoints table, which the relay's sweep reads for
 * every tenant, at the rate requests came. The service and the mock spend it after the caps, so a create
 * refused before costs nothing.
 */
export const ENDPOINTS_CREATED: OutboundLimit = {
  capacity: 30,
  perMs: 1 / 120_000,
  what: 'webhook endpoints and listeners created in this workspace',
};

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

/**
 * Live endpoints one workspace may have on one destination host. An event fans out one POST per endpoint,
 * so this bounds what one event, and so one request of a stranger, sends to any one host from a workspace
 * (the service also paces deliveries per host across workspaces). Relay listeners and local receivers
 * (`localhost`, `127.0.0.1` under the local-development opt-in) are not counted.
 */
export const MAX_ENDPOINTS_PER_HOST = 3;

/**
 * A URL's host as every per-host rule compares it: the hostname as the URL parser normalises it (lower case,
 * IDNs in punycode) without a trailing dot; the port and path do not matter. `undefined` for a URL that is
 * not http(s) (relay listeners).
 */
export function urlHost(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  return host === '' ? undefined : host;
}

/** The host an endpoint's deliveries are paced and capped by (`urlHost`); none for the local receivers. */
export function destinationHost(url: string): string | undefined {
  const host = urlHost(url);
  return host === undefined || LOCAL_WEBHOOK_HOSTS.has(host) ? undefined : host;
}

/**
 * The words of the refusal (403 `forbidden`) when the workspace already has `MAX_ENDPOINTS_PER_HOST` live
 * endpoints on the host of `url`; `liveUrls` are the URLs of its live endpoints.
 */
export function hostCapRefusal(url: string, liveUrls: readonly string[]): string | undefined {
  const host = destinationHost(url);
  if (host === undefined) return undefined;
  const onHost = liveUrls.filter((live) => destinationHost(live) === host).length;
  if (onHost < MAX_ENDPOINTS_PER_HOST) return undefined;
  return `a workspace may have ${MAX_ENDPOINTS_PER_HOST} webhook endpoints on one host, and has them on ${host}; delete one of them or use another host`;
}

/**
 * The failure run an endpoint keeps when it is resumed: the run it had, cut to one short of the pause. An
 * endpoint paused by its failures thus resumes on probation (dialled one attempt at a time, paused again by
 * its next failure), and only a delivered attempt clears the run. Clearing it on resume (or on a pause and
 * resume by hand) would let a workspace buy twenty failing POSTs at someone else's host with every resume.
 */
export function resumedFailureRun(run: number): number {
  return Math.min(run, FAILURES_BEFORE_PAUSE - 1);
}
