import { EVENT_TYPES, type EventType, eventEnvelopeSchema, eventSchemas } from '@svc-kit/webhooks';
import * as z from 'zod';
import { componentRef } from './json-schema.js';

export const EVENTS_TAG = {
  name: 'Webhook events',
  description:
    'What the service POSTs to a registered endpoint: one attempt per event and endpoint, signed with the endpoint’s secret. The body carries ids and metadata only; fetch details from the API.',
};

/** `contact.requested` → `ContactRequestedEvent`. */
export const eventComponentId = (type: EventType): string =>
  `${type
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Event`;

/** The body of each event type: the SDK's envelope with `type` fixed and `data` the SDK's schema. */
export function eventBodySchemas(): [string, z.core.$ZodType][] {
  return EVENT_TYPES.map((type) => [
    eventComponentId(type),
    // The SDK's schemas are zod/mini (no `.extend`); a loose object over the same shape is the same schema.
    z.looseObject({ ...eventEnvelopeSchema.shape, type: z.literal(type), data: eventSchemas[type] }),
  ]);
}

const headers: Record<string, { description: string; pattern?: string }> = {
  XServiceSignature: {
    description:
      '`t=<unix seconds>,v1=<hex>`: HMAC-SHA256 of `<t>.<raw body>` under the endpoint’s secret. During a secret rotation a second `v1` (the old secret’s) follows the first. Reject a `t` more than 300 seconds from now.',
    pattern: '^t=[0-9]+(,v1=[0-9a-f]+)+$',
  },
  XServiceEventId: { description: 'The event id; the same id never denotes two different events.' },
  XServiceEventType: { description: 'The event type, such as `message.received`.' },
  XServiceDelivery: { description: 'Identifies this delivery attempt.' },
};

const headerName = (key: string): string =>
  key.replace(/^XService/, 'X-Service-').replace(/(?<=[a-z])(?=[A-Z])/g, '-');

export function eventHeaderParameters(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(headers).map(([key, { description, pattern }]) => [
      key,
      {
        name: headerName(key),
        in: 'header',
        required: true,
        description,
        schema: { type: 'string', minLength: 1, ...(pattern ? { pattern } : {}) },
      },
    ]),
  );
}

/** The top-level `webhooks` object: one POST per event type. */
export function webhooksObject(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `on${eventComponentId(type)}`,
          summary: `The \`${type}\` event`,
          tags: [EVENTS_TAG.name],
          security: [],
          parameters: Object.keys(headers).map((key) => ({ $ref: `#/components/parameters/${key}` })),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: componentRef(eventComponentId(type)) } } },
          },
          responses: {
            '2XX': {
              description:
                'Any 2xx acknowledges the delivery. Other answers, and no answer, count as a failure; there is no retry.',
            },
          },
        },
      },
    ]),
  );
}
