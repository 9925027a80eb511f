import { newWebhookEndpoint } from '../src/index.js';

// Valid records of every resource, built from the field tables of spec part 2; an endpoint as creation
// starts one, so that these tests do not restate its members.
export const endpoint = newWebhookEndpoint(
  { id: 'whe_01', url: 'https://hooks.example.org/svc', events: [] },
  1_735_689_600_000,
);

export const delivery = {
  id: 'dlv_01',
  endpoint_id: 'whe_01',
  event_id: 'evt_01',
  event_type: 'message.received',
  attempt: 1,
  status: 'delivered',
  http_status: 200,
  latency_ms: 84,
  response_excerpt: 'ok',
  next_attempt_at: null,
  created_at: 1_735_689_600_000,
};

export const contact = {
  fingerprint: 'fp_7c1e',
  display_name: 'Ada',
  status: 'active',
  preset: 'colleague',
  permissions: ['messages', 'tools'],
  trust_flag: 'messages_only',
  petname: 'ada from the lab',
  last_seen_at: 1_735_689_600_000,
  created_at: 1_735_689_000_000,
  endpoint: 'https://peer.example.net/agent',
  address_claim: { root: 'example.net', name: 'ada' },
  acceptance_unheard_since: null,
};

export const integration = {
  id: 'int_01',
  slug: 'github',
  transport: 'streamable-http',
  endpoint: 'https://mcp.example.com/github',
  status: 'healthy',
  permission: 'read',
};

export const tool = {
  name: 'search',
  description: 'Search the archive',
  input_schema: { type: 'object', properties: { q: { type: 'string' } } },
};

export const exposure = {
  catalog: [{ name: 'search', anything: [1, 2] }],
  entries: [{ tool: 'search', mode: 'passthrough', rename: 'find' }],
  version: 3,
  stale: ['old_tool'],
};

export const errorBody = {
  error: { code: 'rate_limited', message: 'slow down', request_id: 'req_1', retry_after: 7 },
};
