import * as z from 'zod/mini';
import { describe } from 'zod/v4/core';
import { freeFormObject, timestampMs } from './common.js';

export const CONTACT_STATUSES = ['active', 'pending_in', 'pending_out', 'blocked'] as const;
export const contactStatusSchema = z.enum(CONTACT_STATUSES);
export type ContactStatus = z.output<typeof contactStatusSchema>;

/** The presets a caller may set. A stored contact may carry other preset names. */
export const CONTACT_PRESETS = ['basic', 'colleague', 'close', 'muted'] as const;
export const contactPresetSchema = z.enum(CONTACT_PRESETS);
export type ContactPreset = z.output<typeof contactPresetSchema>;

/** The trust settings a caller may set. */
export const TRUST_FLAGS = ['messages_only', 'may_instruct'] as const;
export const trustFlagSchema = z.enum(TRUST_FLAGS);
export type TrustFlag = z.output<typeof trustFlagSchema>;

/** Outcomes of refreshContact. */
export const REFRESH_OUTCOMES = ['unchanged', 'updated', 'renewed', 'unreachable', 'refused'] as const;
export const refreshOutcomeSchema = z.enum(REFRESH_OUTCOMES);
export type RefreshOutcome = z.output<typeof refreshOutcomeSchema>;

export const addressClaimSchema = z.strictObject({
  root: z.string(),
  name: z.string(),
});
export type AddressClaim = z.output<typeof addressClaimSchema>;

/** A contact of an identity. */
export const contactSchema = z.strictObject({
  fingerprint: z.string(),
  display_name: z.string(),
  status: contactStatusSchema,
  preset: z
    .string()
    .check(describe('A preset name: `basic`, `colleague`, `close`, `muted`, or another one.')),
  permissions: z.array(z.string()),
  trust_flag: z
    .string()
    .check(describe('The trust setting: `messages_only`, `may_instruct`, or another value.')),
  petname: z.string().check(describe('The owner’s private name for the contact.')),
  last_seen_at: timestampMs,
  created_at: timestampMs,
  endpoint: z.string(),
  leaf: z.optional(z.string()),
  root_cert: z.optional(z.string()),
  address_claim: z.nullable(addressClaimSchema),
  acceptance_unheard_since: z.nullable(timestampMs),
});
export type Contact = z.output<typeof contactSchema>;

/** A tool a contact offers. `input_schema` is free-form. */
export const toolSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  input_schema: freeFormObject,
});
export type Tool = z.output<typeof toolSchema>;
