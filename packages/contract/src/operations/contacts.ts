import * as z from 'zod/mini';
import { freeFormObject, pathSegment } from '../resources/common.js';
import {
  contactPresetSchema,
  contactSchema,
  contactStatusSchema,
  refreshOutcomeSchema,
  toolSchema,
  trustFlagSchema,
} from '../resources/contacts.js';
import { displayText } from '../rules/display-text.js';
import { defineOperation } from './define.js';
import {
  VALIDATED,
  VALIDATED_IDEMPOTENT,
  VALIDATED_IDEMPOTENT_OUTBOUND,
  VALIDATED_OUTBOUND,
  VALIDATED_PEER_ANSWER,
} from './statuses.js';

const identityPath = z.strictObject({ slug: pathSegment });
const contactPath = z.strictObject({ slug: pathSegment, fingerprint: pathSegment });
const contacts = '/v1/identities/{slug}/contacts';
const contact = `${contacts}/{fingerprint}`;

const read = { permission: 'service:contacts:read', action: 'contact:read' } as const;
const manage = { permission: 'service:contacts:manage', action: 'contact:write' } as const;
const plain = { suspended: false, idempotent: false, stepUp: false } as const;
const suspended = { suspended: true, idempotent: false, stepUp: false } as const;
const suspendedIdempotent = { suspended: true, idempotent: true, stepUp: false } as const;

/** A JSON value that must be present (JSON has no `undefined`). */
// Typed as classic zod's refine typed it (the answer's `result` is `{} | null`, never undefined).
const anyValue = z
  .unknown()
  .check(z.refine((value) => value !== undefined, 'required')) as unknown as z.ZodMiniType<
  NonNullable<unknown> | null,
  unknown
>;

export const listContacts = defineOperation({
  operationId: 'listContacts',
  group: 'contacts',
  method: 'GET',
  path: contacts,
  pathParams: identityPath,
  query: z.strictObject({ status: z.optional(contactStatusSchema) }),
  body: null,
  success: { status: 200, schema: z.strictObject({ contacts: z.array(contactSchema) }) },
  errors: VALIDATED,
  ...read,
  flags: plain,
  summary: 'List an identity’s contacts, optionally only those in one state.',
});

export const requestContact = defineOperation({
  operationId: 'requestContact',
  group: 'contacts',
  method: 'POST',
  path: contacts,
  pathParams: identityPath,
  query: null,
  body: z.strictObject({
    card: z.string().check(z.minLength(1), z.maxLength(16384)),
    note: z.optional(z.string().check(z.maxLength(1024))),
  }),
  success: {
    status: 201,
    schema: z.strictObject({
      status: z.enum(['pending', 'active']),
      contact: z.strictObject({
        fingerprint: z.string(),
        endpoint: z.string(),
        display_name: z.string(),
      }),
    }),
  },
  errors: VALIDATED_PEER_ANSWER,
  ...manage,
  flags: suspended,
  summary: 'Ask the holder of a contact card to become a contact.',
});

export const updateContact = defineOperation({
  operationId: 'updateContact',
  group: 'contacts',
  method: 'PATCH',
  path: contact,
  pathParams: contactPath,
  query: null,
  body: z.strictObject({
    preset: z.optional(contactPresetSchema),
    permissions: z.optional(z.array(z.string().check(z.maxLength(96))).check(z.maxLength(64))),
  }),
  success: { status: 200, schema: z.strictObject({ contact: contactSchema }) },
  errors: VALIDATED,
  ...manage,
  flags: suspended,
  summary: 'Change a contact’s preset or its individual permission switches.',
});

export const removeContact = defineOperation({
  operationId: 'removeContact',
  group: 'contacts',
  method: 'DELETE',
  path: contact,
  pathParams: contactPath,
  query: null,
  body: null,
  success: {
    status: 200,
    schema: z.strictObject({ status: z.literal('removed'), fingerprint: z.string(), notified: z.boolean() }),
  },
  errors: VALIDATED_OUTBOUND,
  ...manage,
  flags: suspended,
  summary: 'Remove a contact on both sides and tell the other party.',
});

export const approveContact = defineOperation({
  operationId: 'approveContact',
  group: 'contacts',
  method: 'POST',
  path: `${contact}/approve`,
  pathParams: contactPath,
  query: null,
  // No body at all is the same as `{}`: spec 3.2 gives the preset a default, so the body may be left out.
  body: z._default(z.strictObject({ preset: z._default(contactPresetSchema, 'basic') }), { preset: 'basic' }),
  success: {
    status: 200,
    schema: z.strictObject({
      status: z.literal('approved'),
      fingerprint: z.string(),
      preset: z.string(),
      notified: z.boolean(),
    }),
  },
  errors: VALIDATED_IDEMPOTENT_OUTBOUND,
  ...manage,
  flags: suspendedIdempotent,
  summary: 'Accept a contact request with a preset (default `basic`) and tell the other party.',
});

export const rejectContact = defineOperation({
  operationId: 'rejectContact',
  group: 'contacts',
  method: 'POST',
  path: `${contact}/reject`,
  pathParams: contactPath,
  query: null,
  body: null,
  success: {
    status: 200,
    schema: z.strictObject({ status: z.literal('rejected'), fingerprint: z.string(), notified: z.boolean() }),
  },
  errors: VALIDATED_IDEMPOTENT_OUTBOUND,
  ...manage,
  flags: suspendedIdempotent,
  summary: 'Decline a contact request; the requester cannot knock again.',
});

export const notifyAcceptance = defineOperation({
  operationId: 'notifyAcceptance',
  group: 'contacts',
  method: 'POST',
  path: `${contact}/tell-accepted`,
  pathParams: contactPath,
  query: null,
  body: null,
  success: {
    status: 200,
    schema: z.strictObject({
      fingerprint: z.string(),
      notified: z.boolean(),
      refusal: z.nullable(z.string()),
    }),
  },
  errors: VALIDATED_IDEMPOTENT_OUTBOUND,
  ...manage,
  flags: suspendedIdempotent,
  summary: 'Send the acceptance of an active contact again, when the first one did not arrive.',
});

export const listContactTools = defineOperation({
  operationId: 'listContactTools',
  group: 'contacts',
  method: 'GET',
  path: `${contact}/tools`,
  pathParams: contactPath,
  query: null,
  body: null,
  success: { status: 200, schema: z.strictObject({ tools: z.array(toolSchema) }) },
  errors: VALIDATED_PEER_ANSWER,
  ...read,
  flags: plain,
  summary: 'Ask a contact which tools it offers.',
});

export const callContactTool = defineOperation({
  operationId: 'callContactTool',
  group: 'contacts',
  method: 'POST',
  path: `${contact}/call`,
  pathParams: contactPath,
  query: null,
  body: z.strictObject({
    tool: z.string().check(z.minLength(1)),
    arguments: z.optional(freeFormObject),
  }),
  success: { status: 200, schema: z.strictObject({ ok: z.boolean(), result: anyValue }) },
  errors: VALIDATED_PEER_ANSWER,
  permission: 'service:messages:send',
  action: 'message:send',
  flags: suspended,
  summary: 'Call one of a contact’s tools and return its result.',
});

export const blockContact = defineOperation({
  operationId: 'blockContact',
  group: 'contacts',
  method: 'POST',
  path: `${contact}/block`,
  pathParams: contactPath,
  query: null,
  body: null,
  success: { status: 200, schema: z.strictObject({ status: z.literal('blocked'), fingerprint: z.string() }) },
  errors: VALIDATED_IDEMPOTENT,
  ...manage,
  flags: suspendedIdempotent,
  summary: 'Block a contact silently.',
});

export const unblockContact = defineOperation({
  operationId: 'unblockContact',
  group: 'contacts',
  method: 'POST',
  path: `${contact}/unblock`,
  pathParams: contactPath,
  query: null,
  body: null,
  success: {
    status: 200,
    schema: z.strictObject({ status: z.enum(['active', 'forgotten']), fingerprint: z.string() }),
  },
  errors: VALIDATED,
  ...manage,
  flags: suspended,
  summary: 'Lift a block: a former contact is active again, a declined request is forgotten.',
});

export const setPetname = defineOperation({
  operationId: 'setPetname',
  group: 'contacts',
  method: 'PATCH',
  path: `${contact}/petname`,
  pathParams: contactPath,
  query: null,
  body: z.strictObject({ petname: displayText(64) }),
  success: { status: 200, schema: z.null() },
  errors: VALIDATED,
  ...manage,
  flags: suspended,
  summary: 'Set the owner’s private name for a contact.',
});

export const refreshContact = defineOperation({
  operationId: 'refreshContact',
  group: 'contacts',
  method: 'POST',
  path: `${contact}/refresh`,
  pathParams: contactPath,
  query: null,
  body: z.strictObject({}),
  success: {
    status: 200,
    schema: z.strictObject({ outcome: refreshOutcomeSchema, why: z.optional(z.string()) }),
  },
  errors: VALIDATED_OUTBOUND,
  ...manage,
  flags: suspended,
  summary: 'Fetch this contact’s signed card again now.',
});

export const setTrust = defineOperation({
  operationId: 'setTrust',
  group: 'contacts',
  method: 'PATCH',
  path: `${contact}/trust`,
  pathParams: contactPath,
  query: null,
  body: z.strictObject({ trust: trustFlagSchema }),
  success: { status: 200, schema: z.null() },
  errors: VALIDATED,
  permission: 'service:contacts:trust',
  action: 'contact:trust',
  flags: suspended,
  summary: 'Say whether a contact may only message or may also instruct.',
});
