/** A token bucket: `capacity` calls at once, refilled at `perMs` tokens per millisecond. */
export interface BucketLimit {
  capacity: number;
  perMs: number;
  /** Named in logs and the 429 message. */
  what: string;
}

/** Spec part 8: one outbound call per second per contact, with a burst of ten. */
export const PER_CONTACT: BucketLimit = { capacity: 10, perMs: 1 / 1000, what: 'this contact' };

/**
 * Our choice for the identity aggregate (the spec only says it exists): five calls per second with a
 * burst of thirty, across all of an identity's peers. It sits on top of the per-contact bucket.
 */
export const PER_IDENTITY: BucketLimit = { capacity: 30, perMs: 5 / 1000, what: 'this identity' };

/** Spec part 8: twenty calls per hour to parties that are not (yet) contacts, i.e. new requests. */
export const TO_STRANGERS: BucketLimit = {
  capacity: 20,
  perMs: 20 / 3_600_000,
  what: 'requests to new parties of this identity',
};
