import * as z from 'zod/mini';
import { describe } from 'zod/v4/core';
import { pathSegment, queryInteger } from '../resources/common.js';
import {
  deliveryStatusSchema,
  eventFilterNameSchema,
  webhookDeliverySchema,
  webhookEndpointSchema,
  webhookListSchema,
  webhookStatusSchema,
} from '../resources/webhooks.js';
import { MAX_ENDPOINTS_PER_HOST } from '../rules/webhooks.js';
import { defineOperation } from './define.js';
import { VALIDATED, VALIDATED_BUDGETED } from './statuses.js';

const endpointPath = z.strictObject({ id: pathSegment });

export const listWebhooks = defineOperation({
  operationId: 'listWebhooks',
  group: 'webhooks',
  method: 'GET',
  path: '/v1/workspace/webhooks',
  pathParams: null,
  query: null,
  body: null,
  success: { status: 200, schema: webhookListSchema },
  errors: VALIDATED,
  permission: 'service:workspace:admin',
  action: 'webhook:read',
  flags: { suspended: false, idempotent: false, stepUp: false },
  summary:
    'List the workspace’s webhook endpoints, the event names a filter may use, and whether delivery is on.',
});

export const createWebhook = defineOperation({
  operationId: 'createWebhook',
  group: 'webhooks',
  method: 'POST',
  path: '/v1/workspace/webhooks',
  pathParams: null,
  query: null,
  body: z.strictObject({
    url: z
      .string()
      .check(
        z.minLength(1),
        describe(
          `Where deliveries go. The service refuses (400 \`invalid_request\`) a URL that is not https or whose host is an IP address or a name resolving only on a private network, and (403 \`forbidden\`) one more endpoint on a host where the workspace already has ${MAX_ENDPOINTS_PER_HOST} live ones.`,
        ),
      ),
    events: z
      ._default(z.array(eventFilterNameSchema), [])
      .check(
        describe(
          'Events to receive; empty (the default) means every event. Only sent events may be named: a reserved name is refused.',
        ),
      ),
  }),
  success: {
    status: 201,
    schema: z.strictObject({
      endpoint: webhookEndpointSchema,
      secret: z
        .string()
        .check(describe('The signing secret. Shown here and on rotation only; store it now.')),
    }),
  },
  errors: VALIDATED,
  permission: 'service:workspace:admin',
  action: 'webhook:create',
  flags: { suspended: true, idempotent: false, stepUp: true },
  summary: 'Register an endpoint and receive its signing secret, once.',
});

export const rotateWebhookSecret = defineOperation({
  operationId: 'rotateWebhookSecret',
  group: 'webhooks',
  method: 'POST',
  path: '/v1/workspace/webhooks/{id}/secret',
  pathParams: endpointPath,
  query: null,
  body: null,
  success: {
    status: 200,
    schema: z.strictObject({
      secret: z.string().check(describe('The new signing secret. Shown once.')),
      previous_accepted_until: z
        .int()
        .check(
          z.nonnegative(),
          describe('Until when (ms) the previous secret still verifies: 24 hours after the rotation.'),
        ),
    }),
  },
  errors: VALIDATED,
  permission: 'service:workspace:admin',
  action: 'webhook:manage',
  flags: { suspended: true, idempotent: false, stepUp: false },
  summary: 'Replace an endpoint’s signing secret; the old one keeps verifying for 24 hours.',
});

export const setWebhookStatus = defineOperation({
  operationId: 'setWebhookStatus',
  group: 'webhooks',
  method: 'PATCH',
  path: '/v1/workspace/webhooks/{id}',
  pathParams: endpointPath,
  query: null,
  body: z.strictObject({ status: webhookStatusSchema }),
  success: { status: 200, schema: z.strictObject({ endpoints: z.array(webhookEndpointSchema) }) },
  errors: VALIDATED,
  permission: 'service:workspace:admin',
  action: 'webhook:manage',
  flags: { suspended: true, idempotent: false, stepUp: false },
  summary:
    'Pause or resume an endpoint; resuming keeps its failure run short of the pause, so only a delivery clears it.',
});

export const deleteWebhook = defineOperation({
  operationId: 'deleteWebhook',
  group: 'webhooks',
  method: 'DELETE',
  path: '/v1/workspace/webhooks/{id}',
  pathParams: endpointPath,
  query: null,
  body: null,
  success: { status: 204, schema: null },
  errors: VALIDATED,
  permission: 'service:workspace:admin',
  action: 'webhook:delete',
  flags: { suspended: false, idempotent: false, stepUp: false },
  summary: 'Remove an endpoint; its delivery log stays readable. Allowed even on a suspended workspace.',
});

export const listWebhookDeliveries = defineOperation({
  operationId: 'listWebhookDeliveries',
  group: 'webhooks',
  method: 'GET',
  path: '/v1/workspace/webhooks/{id}/deliveries',
  pathParams: endpointPath,
  // The filters are ours (the spec names `limit` only): the portal's log is filtered by the service, so
  // that a row older than the newest hundred can still be found. They combine; each narrows the log.
  query: z.strictObject({
    limit: queryInteger(1, 100),
    status: z.optional(deliveryStatusSchema.check(describe('Only attempts with this status.'))),
    event_type: z.optional(eventFilterNameSchema.check(describe('Only attempts of this event type.'))),
    event_id: z.optional(
      z.string().check(z.minLength(1), z.maxLength(64), describe('Only the attempt of this event.')),
    ),
  }),
  body: null,
  success: { status: 200, schema: z.strictObject({ deliveries: z.array(webhookDeliverySchema) }) },
  // 429: a status or event type filter spends the workspace's FILTERED_LOG_READS (rules/delivery-log.ts).
  errors: VALIDATED_BUDGETED,
  permission: 'service:workspace:admin',
  action: 'webhook:read',
  flags: { suspended: false, idempotent: false, stepUp: false },
  summary: 'Read an endpoint’s delivery log, newest first; optionally only one status, event type or event.',
});
