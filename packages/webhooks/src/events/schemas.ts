// zod/mini, not classic zod: the same checks at a fraction of the bundle (sizes on the open-choices page,
// for these schemas), which matters on edge runtimes. Every top-level call is marked pure so that a
// bundle importing only the signature functions drops the schemas, and zod with them.
import * as z from 'zod/mini';
import type { EventType } from './catalogue';

/** `sha256:` followed by 64 lowercase hex digits: how the service names a contact without revealing it. */
const contactDigest = /* @__PURE__ */ z
  .string()
  .check(
    /* @__PURE__ */ z.regex(
      /^sha256:[0-9a-f]{64}$/,
      'expected a contact digest of the form sha256:<64 lowercase hex digits>',
    ),
  );

const nonEmpty = /* @__PURE__ */ z.string().check(/* @__PURE__ */ z.minLength(1));
const count = /* @__PURE__ */ z.int().check(/* @__PURE__ */ z.nonnegative());

// Data objects are loose on purpose: the service may add fields to an event type without a new major
// version, and a receiver built today must keep accepting those deliveries.
const messageReceived = /* @__PURE__ */ z.looseObject({ thread_id: nonEmpty, contact: contactDigest });
const contactChange = /* @__PURE__ */ z.looseObject({ contact: contactDigest });
const integrationChange = /* @__PURE__ */ z.looseObject({ integration: nonEmpty });
const exposureUpdated = /* @__PURE__ */ z.looseObject({ integration: nonEmpty, version: count });

// A literal, not `Number.MAX_SAFE_INTEGER`: bundlers treat reading a global's property as a possible side
// effect, which would keep the envelope schema (and zod) in bundles that never parse an event.
const MAX_SAFE_INTEGER = 9_007_199_254_740_991;

/** The `data` schema of each event type in the catalogue (zod/mini schemas: `.parse`, `.safeParse`). */
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
} as const satisfies { readonly [K in EventType]: z.ZodMiniType }; // `satisfies` fails the build on a missing or extra type

/**
 * What every delivery body has, whatever its type. Unknown top-level fields are kept, for the same
 * forward-compatibility reason as in `data`.
 */
export const eventEnvelopeSchema = /* @__PURE__ */ z.looseObject({
  id: /* @__PURE__ */ z
    .string()
    .check(/* @__PURE__ */ z.regex(/^evt_\S+$/, 'expected an event id starting with evt_')),
  type: nonEmpty,
  created_at: /* @__PURE__ */ z
    .int()
    .check(/* @__PURE__ */ z.nonnegative(), /* @__PURE__ */ z.maximum(MAX_SAFE_INTEGER)),
  identity: nonEmpty,
  data: /* @__PURE__ */ z.record(/* @__PURE__ */ z.string(), /* @__PURE__ */ z.unknown()),
});

export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;
export type EventDataMap = { [K in EventType]: z.infer<(typeof eventSchemas)[K]> };
