import { z } from 'zod';
import type { EventType } from './catalogue';

/** `sha256:` followed by 64 lowercase hex digits: how the service names a contact without revealing it. */
const contactDigest = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, 'expected a contact digest of the form sha256:<64 lowercase hex digits>');

const nonEmpty = z.string().min(1);

// Data objects are loose on purpose: the service may add fields to an event type without a new major
// version, and a receiver built today must keep accepting those deliveries.
const messageReceived = z.looseObject({ thread_id: nonEmpty, contact: contactDigest });
const contactChange = z.looseObject({ contact: contactDigest });
const integrationChange = z.looseObject({ integration: nonEmpty });
const exposureUpdated = z.looseObject({
  integration: nonEmpty,
  version: z.number().int().nonnegative(),
});

/** The `data` schema of each event type in the catalogue. */
export const eventSchemas = {
  'message.received': messageReceived,
  'contact.requested': contactChange,
  'contact.approved': contactChange,
  'contact.rejected': contactChange,
  'contact.blocked': contactChange,
  'contact.unblocked': contactChange,
  'contact.removed': contactChange,
  'contact.updated': contactChange,
  'integration.created': integrationChange,
  'integration.authorized': integrationChange,
  'integration.exposure_updated': exposureUpdated,
  'integration.deleted': integrationChange,
} as const satisfies { readonly [K in EventType]: z.ZodType }; // `satisfies` fails the build on a missing or extra type

/**
 * What every delivery body has, whatever its type. Unknown top-level fields are kept, for the same
 * forward-compatibility reason as in `data`.
 */
export const eventEnvelopeSchema = z.looseObject({
  id: z.string().regex(/^evt_\S+$/, 'expected an event id starting with evt_'),
  type: nonEmpty,
  created_at: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  identity: nonEmpty,
  data: z.record(z.string(), z.unknown()),
});

export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;
export type EventDataMap = { [K in EventType]: z.infer<(typeof eventSchemas)[K]> };
