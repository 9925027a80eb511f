/**
 * The events the service sends. The webhook list answer's `events` field is exactly this list, and an
 * endpoint filter may only name these. Order is stable: new types are appended.
 */
export const EVENT_TYPES = [
  'message.received',
  'contact.requested',
  'contact.approved',
  'contact.rejected',
  'contact.blocked',
  'contact.unblocked',
  'contact.removed',
  'contact.updated',
  'integration.created',
  'integration.authorized',
  'integration.exposure_updated',
  'integration.deleted',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Names held back for events the service does not send yet. A filter naming one is refused rather than
 * stored, so that an endpoint never silently waits for an event that cannot arrive.
 */
export const RESERVED_EVENT_TYPES = [
  'message.sent',
  'message.read',
  'thread.created',
  'identity.updated',
] as const;

export type ReservedEventType = (typeof RESERVED_EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
