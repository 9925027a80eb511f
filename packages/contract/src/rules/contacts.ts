import type { ContactPreset } from '../resources/contacts.js';

/** A contact's switch that lets it list the identity's offered tools. */
export const TOOLS_LIST_PERMISSION = 'tools:list';
/** A contact's switch that lets it call an offered tool; also every integration's `permission`. */
export const TOOLS_CALL_PERMISSION = 'tools:call';

/**
 * The contact switches a preset stands for (our choice: the spec names presets, not their content).
 * Setting a preset, at approval or with updateContact, replaces the switches with these; updateContact may
 * then set switches one by one.
 */
export const PRESET_PERMISSIONS: Readonly<Record<ContactPreset, readonly string[]>> = {
  muted: [],
  basic: ['messages:receive'],
  colleague: ['messages:receive', TOOLS_LIST_PERMISSION],
  close: ['messages:receive', TOOLS_LIST_PERMISSION, TOOLS_CALL_PERMISSION],
};

/** Spec 3.2: approve without a preset uses `basic`; a new contact row starts with it too. */
export const DEFAULT_PRESET: ContactPreset = 'basic';
export const DEFAULT_TRUST = 'messages_only';

/** The switches a contact gets with `preset`, as a fresh array the caller may keep. */
export function permissionsOfPreset(preset: ContactPreset): string[] {
  return [...PRESET_PERMISSIONS[preset]];
}

/** A token bucket: `capacity` calls at once, refilled at `perMs` tokens per millisecond. */
export interface OutboundLimit {
  capacity: number;
  perMs: number;
  /** Named in the 429 message. */
  what: string;
}

/** Spec part 8: one outbound call per second per contact, with a burst of ten. */
export const PER_CONTACT_LIMIT: OutboundLimit = { capacity: 10, perMs: 1 / 1000, what: 'this contact' };

/**
 * Our choice for the identity aggregate (the spec only says it exists): five calls per second with a burst
 * of thirty, across all of an identity's peers, on top of the per-contact bucket.
 */
export const PER_IDENTITY_LIMIT: OutboundLimit = { capacity: 30, perMs: 5 / 1000, what: 'this identity' };

/** Spec part 8: twenty calls per hour to strangers (see `isStrangerCall`). */
export const TO_STRANGERS_LIMIT: OutboundLimit = {
  capacity: 20,
  perMs: 20 / 3_600_000,
  what: 'calls to parties that are not active contacts of this identity',
};

/**
 * Whether an outbound call spends the strangers' budget: every call to a party that is not an active
 * contact at the time of the call. A first request, a repeated request to a party that has not answered
 * yet (`pending_out`), an answer to a request (`pending_in`) and a call about a blocked party all count;
 * only calls to `active` contacts do not. Counting repeats is what stops one unanswered party from being
 * knocked at every second.
 */
export function isStrangerCall(status: string | undefined): boolean {
  return status !== 'active';
}

/** A token bucket's state: tokens left (fractional) at `updatedAt` (milliseconds). */
export interface OutboundBucket {
  tokens: number;
  updatedAt: number;
}

/** The tokens a bucket holds at `now`, refilled since its last take (see `takeOutboundToken`). */
export function outboundTokens(
  bucket: OutboundBucket | undefined,
  limit: Pick<OutboundLimit, 'capacity' | 'perMs'>,
  now: number,
): number {
  if (bucket === undefined) return limit.capacity;
  return Math.min(limit.capacity, bucket.tokens + Math.max(0, now - bucket.updatedAt) * limit.perMs);
}

/**
 * Takes one token: the bucket refills by the time since its last take (capped at `capacity`; a clock that
 * runs behind adds nothing), and a take needs a whole token. A bucket never used is full. When empty, says
 * how long until a whole token is there.
 */
export function takeOutboundToken(
  bucket: OutboundBucket | undefined,
  limit: Pick<OutboundLimit, 'capacity' | 'perMs'>,
  now: number,
): { ok: true; next: OutboundBucket } | { ok: false; waitMs: number } {
  const available = outboundTokens(bucket, limit, now);
  if (available >= 1) {
    return { ok: true, next: { tokens: available - 1, updatedAt: Math.max(bucket?.updatedAt ?? now, now) } };
  }
  return { ok: false, waitMs: (1 - available) / limit.perMs };
}

/** The 429 of an empty bucket: whole seconds, at least 1, and the message both sides answer. */
export function outboundRefusal(
  limit: OutboundLimit,
  waitMs: number,
): { retryAfter: number; message: string } {
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
  return {
    retryAfter,
    message: `the outbound call budget for ${limit.what} is spent; retry after ${retryAfter} seconds`,
  };
}

/**
 * The 429 of any other budget of the contract (`what` says whose): whole seconds, at least 1, and the
 * message both the mock and the service answer.
 */
export function limitRefusal(
  limit: Pick<OutboundLimit, 'what'>,
  waitMs: number,
): { retryAfter: number; message: string } {
  const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
  return { retryAfter, message: `too many ${limit.what}; retry after ${retryAfter} seconds` };
}
