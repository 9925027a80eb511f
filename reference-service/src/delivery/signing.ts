import { HEADER_NAMES, sign } from '@svc-kit/webhooks/node';

/** The headers of one delivery, signed with `@svc-kit/webhooks` (the receiver SDK verifies the same way). */
export function deliveryHeaders(delivery: {
  deliveryId: string;
  eventId: string;
  eventType: string;
  /** The event envelope exactly as stored; these bytes are signed and sent. */
  body: string;
  /** Newest first: during a rotation both secrets sign, the new one's `v1` first. */
  secrets: readonly string[];
  /** Unix seconds. */
  timestamp: number;
}): Record<string, string> {
  return {
    'content-type': 'application/json',
    [HEADER_NAMES.signature]: sign(delivery.body, {
      secret: delivery.secrets,
      timestamp: delivery.timestamp,
    }),
    [HEADER_NAMES.eventId]: delivery.eventId,
    [HEADER_NAMES.eventType]: delivery.eventType,
    [HEADER_NAMES.delivery]: delivery.deliveryId,
  };
}
