/** What a handler learns about the delivery besides the event. */
export interface DeliveryContext {
  /** `X-Service-Delivery`: identifies this attempt (unsigned; for logs and support). */
  deliveryId: string | undefined;
  /** The event id, from the signed body. */
  eventId: string;
  /** The event type, from the signed body. */
  eventType: string;
}

/**
 * What an error handler learns. For a refused delivery the ids come from the unsigned headers (they may be
 * absent or false); for a handler failure they are the verified ones.
 */
export interface ErrorContext {
  deliveryId: string | undefined;
  eventId: string | undefined;
  eventType: string | undefined;
}
