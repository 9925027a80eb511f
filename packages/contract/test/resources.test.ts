import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import {
  contactSchema,
  errorBodySchema,
  exposureEntrySchema,
  exposureSchema,
  integrationSchema,
  toolSchema,
  webhookDeliverySchema,
  webhookEndpointSchema,
  webhookListSchema,
} from '../src/index.js';
import { contact, delivery, endpoint, errorBody, exposure, integration, tool } from './fixtures.js';

const accepts = (schema: z.ZodMiniType, value: unknown) => expect(schema.safeParse(value).success).toBe(true);
const refuses = (schema: z.ZodMiniType, value: unknown) =>
  expect(schema.safeParse(value).success).toBe(false);

const strictCases: [string, z.ZodMiniType, Record<string, unknown>][] = [
  ['webhook endpoint', webhookEndpointSchema, endpoint],
  ['webhook list', webhookListSchema, { endpoints: [endpoint], events: ['message.received'], enabled: true }],
  ['delivery record', webhookDeliverySchema, delivery],
  ['contact', contactSchema, contact],
  ['integration', integrationSchema, integration],
  ['tool', toolSchema, tool],
  ['exposure', exposureSchema, exposure],
  ['error body', errorBodySchema, errorBody],
];

describe('resources', () => {
  it.each(strictCases)('%s: accepts a valid record and refuses an unknown field', (_name, schema, valid) => {
    accepts(schema, valid);
    refuses(schema, { ...valid, surprise: true });
  });

  it.each(strictCases)('%s: refuses a record missing any required field', (_name, schema, valid) => {
    const optional = new Set(['leaf', 'root_cert', 'retry_after']);
    for (const key of Object.keys(valid).filter((k) => !optional.has(k))) {
      const { [key]: _dropped, ...rest } = valid;
      refuses(schema, rest);
    }
  });

  it('webhook endpoint: never carries a secret, and takes only the two states', () => {
    refuses(webhookEndpointSchema, { ...endpoint, secret: 'whsec_x' });
    accepts(webhookEndpointSchema, { ...endpoint, status: 'paused', rotating_until: 1_735_776_000_000 });
    refuses(webhookEndpointSchema, { ...endpoint, status: 'disabled' });
  });

  it('timestamps are integer milliseconds', () => {
    refuses(webhookEndpointSchema, { ...endpoint, created_at: 1.5 });
    refuses(webhookEndpointSchema, { ...endpoint, created_at: '1735689600000' });
    refuses(webhookEndpointSchema, { ...endpoint, created_at: -1 });
  });

  it('delivery record: status is one of the decided values; the numbers may be null', () => {
    for (const status of [
      'pending',
      'sending',
      'delivered',
      'failed',
      'abandoned',
      'not_sent_paused',
      'not_sent_removed',
    ]) {
      accepts(webhookDeliverySchema, { ...delivery, status });
    }
    refuses(webhookDeliverySchema, { ...delivery, status: 'retrying' });
    accepts(webhookDeliverySchema, {
      ...delivery,
      status: 'pending',
      http_status: null,
      latency_ms: null,
      response_excerpt: null,
      next_attempt_at: 1_735_689_601_000,
    });
  });

  it('contact: optional leaf and root_cert, a strict address claim, the four states', () => {
    accepts(contactSchema, { ...contact, leaf: 'PEM…', root_cert: 'PEM…', address_claim: null });
    refuses(contactSchema, { ...contact, address_claim: { root: 'example.net' } });
    refuses(contactSchema, { ...contact, address_claim: { root: 'a', name: 'b', extra: 'c' } });
    for (const status of ['active', 'pending_in', 'pending_out', 'blocked']) {
      accepts(contactSchema, { ...contact, status });
    }
    refuses(contactSchema, { ...contact, status: 'pending' });
    refuses(contactSchema, { ...contact, permissions: 'all' });
  });

  it('tool and exposure: free-form exactly where the spec says', () => {
    accepts(toolSchema, { ...tool, input_schema: { anything: { nested: [true] } } });
    refuses(toolSchema, { ...tool, input_schema: ['not', 'an', 'object'] });
    accepts(exposureSchema, { ...exposure, catalog: [{}], entries: [{ whatever: 1 }] });
    refuses(exposureSchema, { ...exposure, catalog: ['search'] });
    refuses(exposureSchema, { ...exposure, stale: [1] });
  });

  it('exposure entry: tool and mode required, further fields kept', () => {
    const entry = { tool: 'search', mode: 'mapped', as: 'find' };
    expect(exposureEntrySchema.parse(entry)).toEqual(entry);
    for (const mode of ['passthrough', 'mapped', 'agent']) accepts(exposureEntrySchema, { tool: 't', mode });
    refuses(exposureEntrySchema, { tool: 't', mode: 'proxy' });
    refuses(exposureEntrySchema, { mode: 'agent' });
  });

  it('error body: retry_after optional, integer; nothing beside error', () => {
    accepts(errorBodySchema, { error: { code: 'not_found', message: 'no', request_id: 'r' } });
    refuses(errorBodySchema, { error: { code: 'x', message: 'y', request_id: 'r', retry_after: 1.5 } });
    refuses(errorBodySchema, { ...errorBody, detail: 'x' });
  });
});
