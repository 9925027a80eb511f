import {
  type Contact,
  type Integration,
  newWebhookEndpoint,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '@svc-kit/contract';

// Answers that match the contract's success schemas; the operations test parses each with
// `validateResponses: true`, so a fixture that drifts from the contract fails there.

/** An endpoint as creation starts one (the contract's starting values, not restated here). */
export const endpoint: WebhookEndpoint = newWebhookEndpoint(
  { id: 'wh_1', url: 'https://hooks.example.org/svc', events: ['message.received'] },
  1_700_000_000_000,
);

export const delivery: WebhookDelivery = {
  id: 'dl_1',
  endpoint_id: 'wh_1',
  event_id: 'evt_1',
  event_type: 'message.received',
  attempt: 1,
  status: 'delivered',
  http_status: 200,
  latency_ms: 12.5,
  response_excerpt: 'ok',
  next_attempt_at: null,
  created_at: 1_700_000_000_000,
};

export const contact: Contact = {
  fingerprint: 'fp_1',
  display_name: 'Ada',
  status: 'active',
  preset: 'basic',
  permissions: ['messages'],
  trust_flag: 'messages_only',
  petname: 'ada',
  last_seen_at: 1_700_000_000_000,
  created_at: 1_700_000_000_000,
  endpoint: 'https://peer.example.org',
  address_claim: null,
  acceptance_unheard_since: null,
};

export const integration: Integration = {
  id: 'int_1',
  slug: 'github',
  transport: 'streamable-http',
  endpoint: 'https://mcp.example.org',
  status: 'connected',
  permission: 'service:identities:read',
};

/** A valid error body. */
export function errorBody(code: string, message: string, requestId: string, retryAfter?: number) {
  return {
    error: {
      code,
      message,
      request_id: requestId,
      ...(retryAfter === undefined ? {} : { retry_after: retryAfter }),
    },
  };
}
