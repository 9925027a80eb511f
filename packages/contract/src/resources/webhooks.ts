import { EVENT_TYPES, RESERVED_EVENT_TYPES } from '@svc-kit/webhooks';
import * as z from 'zod/mini';
import { describe } from 'zod/v4/core';
import { FAILURES_BEFORE_PAUSE } from '../rules/delivery.js';
import { timestampMs } from './common.js';

/** The states an endpoint can be in; both can be set with setWebhookStatus. */
export const WEBHOOK_STATUSES = ['active', 'paused'] as const;
export const webhookStatusSchema = z.enum(WEBHOOK_STATUSES);
export type WebhookStatus = z.output<typeof webhookStatusSchema>;

/**
 * Values of a delivery record's `status` (decided on the open-choices page). `not_sent_paused` and
 * `not_sent_removed`: settled without a request because the endpoint was paused or removed before its turn.
 */
export const DELIVERY_STATUSES = [
  'pending',
  'sending',
  'delivered',
  'failed',
  'abandoned',
  'not_sent_paused',
  'not_sent_removed',
] as const;
export const deliveryStatusSchema = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.output<typeof deliveryStatusSchema>;

const reserved: readonly string[] = RESERVED_EVENT_TYPES;

/**
 * An event name a filter may use. Only sent events pass; a reserved name gets its own message so that the
 * caller learns it is not sent yet rather than misspelled.
 */
export const eventFilterNameSchema = z.enum(EVENT_TYPES, {
  error: (issue) =>
    typeof issue.input === 'string' && reserved.includes(issue.input)
      ? `"${issue.input}" is reserved and not sent yet; a filter may only name events that are sent`
      : `not an event the service sends; expected one of ${EVENT_TYPES.join(', ')}`,
});

/** A registered endpoint. The signing secret is never part of it. */
export const webhookEndpointSchema = z.strictObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()).check(describe('The event filter; an empty array means every event.')),
  status: webhookStatusSchema,
  consecutive_failures: z
    .int()
    .check(
      z.nonnegative(),
      describe(
        `Failed deliveries in a row; ${FAILURES_BEFORE_PAUSE} pause the endpoint. Only a delivered attempt clears it: a resume keeps it, cut to one short of the pause, so an endpoint paused by failures is paused again by its next one.`,
      ),
    ),
  rotating_until: z
    .nullable(timestampMs)
    .check(describe('While a rotated-out secret still verifies: until when (ms). Otherwise null.')),
  created_at: timestampMs,
  updated_at: timestampMs,
});
export type WebhookEndpoint = z.output<typeof webhookEndpointSchema>;

/** What the creator of an endpoint gives; the members left out start as `newWebhookEndpoint` says. */
export type NewWebhookEndpoint = Pick<WebhookEndpoint, 'id' | 'url' | 'events'> & Partial<WebhookEndpoint>;

/**
 * A new endpoint's record: active, no failures, no rotation under way, created `now`. The mock, the
 * service and the examples all start an endpoint here, so a member added to the schema gets its
 * starting value in this file only.
 */
export function newWebhookEndpoint(given: NewWebhookEndpoint, now: number): WebhookEndpoint {
  const { id, url, events, ...rest } = given;
  // In the schema's order, which the examples and the mock's answers keep.
  return {
    id,
    url,
    events,
    status: 'active',
    consecutive_failures: 0,
    rotating_until: null,
    created_at: now,
    updated_at: now,
    ...rest,
  };
}

/** The answer of listWebhooks. */
export const webhookListSchema = z.strictObject({
  endpoints: z.array(webhookEndpointSchema),
  events: z.array(z.string()).check(describe('The event names a filter may use.')),
  enabled: z
    .boolean()
    .check(describe('The workspace’s `webhooks_enabled` flag: while false, nothing is delivered.')),
});
export type WebhookList = z.output<typeof webhookListSchema>;

/** One logged delivery attempt. */
export const webhookDeliverySchema = z.strictObject({
  id: z.string(),
  endpoint_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  attempt: z.int().check(z.positive()),
  status: deliveryStatusSchema,
  http_status: z.nullable(z.int().check(z.minimum(100), z.maximum(599))),
  latency_ms: z.nullable(z.number().check(z.nonnegative())),
  response_excerpt: z.nullable(z.string()).check(describe('The first 500 bytes of the endpoint’s answer.')),
  next_attempt_at: z.nullable(timestampMs),
  created_at: timestampMs,
});
export type WebhookDelivery = z.output<typeof webhookDeliverySchema>;
