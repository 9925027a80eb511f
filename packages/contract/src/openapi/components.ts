import type * as z from 'zod';
import { addressClaimSchema, contactSchema, toolSchema } from '../resources/contacts.js';
import { errorBodySchema } from '../resources/error-body.js';
import { exposureEntrySchema, exposureSchema, integrationSchema } from '../resources/integrations.js';
import { webhookDeliverySchema, webhookEndpointSchema, webhookListSchema } from '../resources/webhooks.js';

/**
 * The resources that appear under `components/schemas` by name, so that every operation refers to the
 * same definition. Operation bodies and answers that are not one of these get `<OperationId>Request` and
 * `<OperationId>Response`.
 */
export const namedSchemas: ReadonlyArray<readonly [id: string, schema: z.core.$ZodType]> = [
  ['WebhookEndpoint', webhookEndpointSchema],
  ['WebhookList', webhookListSchema],
  ['WebhookDelivery', webhookDeliverySchema],
  ['Contact', contactSchema],
  ['AddressClaim', addressClaimSchema],
  ['Tool', toolSchema],
  ['Integration', integrationSchema],
  ['Exposure', exposureSchema],
  ['ExposureEntry', exposureEntrySchema],
  ['ErrorBody', errorBodySchema],
];
