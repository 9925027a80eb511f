/** The headers on every delivery, lower-cased (HTTP header names are case-insensitive). */
export const HEADER_NAMES = {
  signature: 'x-service-signature',
  eventId: 'x-service-event-id',
  eventType: 'x-service-event-type',
  delivery: 'x-service-delivery',
} as const;

export type HeaderName = (typeof HEADER_NAMES)[keyof typeof HEADER_NAMES];
