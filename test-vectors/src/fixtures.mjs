// Fixed inputs shared by every vector. Nothing here reads the clock or a random source, so that
// generating twice gives the same bytes.
import { createHash } from 'node:crypto';

/** 2026-01-01T00:00:00Z, in seconds: the `t` of most signatures. */
export const T = 1767225600;

/** A receiver clock 42.25 s after `T`, in milliseconds: well inside the default tolerance. */
export const NOW_MS = T * 1000 + 42_250;

export const DEFAULT_TOLERANCE_SECONDS = 300;

export const SECRETS = {
  primary: 'whsec_vectors_primary_7f3a9c2e5b1d4f68a0c3e9b2d5f71a4c',
  rotatedNew: 'whsec_vectors_rotated_new_2b8e4d1f6a9c3e70b5d2f8a1c4e6b9d3',
  rotatedOld: 'whsec_vectors_rotated_old_c1d7e3a9f5b2084e6d1a7c3f9b5e2d80',
  unrelated: 'whsec_vectors_unrelated_0e4a8c2f6b1d5e9a3c7f0b4d8e2a6c1f',
};

/**
 * A `sha256:<hex>` digest, derived from a label so the vectors carry no opaque constants.
 * @param {string} label
 */
export const digest = (label) => `sha256:${createHash('sha256').update(label, 'utf8').digest('hex')}`;

/** The event most signature vectors carry: a `message.received` as the service sends it. */
export const BASE_EVENT = {
  id: 'evt_01JGXA7Q3M8R2T6V9W4Y5Z0B1C',
  type: 'message.received',
  created_at: T * 1000 - 877,
  identity: 'support-bot',
  data: { thread_id: 'thr_01JGXA7N2K5P8S1U4X7Z0C3E6G', contact: digest('contact:alice') },
};

/**
 * The three other headers of a delivery, consistent with an envelope's `id` and `type`.
 * @param {{ id: string, type: string }} event
 * @param {string} delivery
 */
export const eventHeaders = (event, delivery) => ({
  'x-service-event-id': event.id,
  'x-service-event-type': event.type,
  'x-service-delivery': delivery,
});
