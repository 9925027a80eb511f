import { createSandbox, createSandboxCard, type SandboxData, sandboxFingerprint } from '@svc-kit/mock';

/**
 * The state the HTTP reference's examples are written against: every id, slug and fingerprint an example
 * names exists here. Each example runs on a fresh copy (`reset()`), with a fixed seed and clock, so the
 * answers are the same on every run.
 */
export const EXAMPLE_CLOCK_MS = 1_767_225_600_000; // 2026-01-01T00:00:00Z
export const EXAMPLE_BASE_URL = 'http://127.0.0.1:8080';

export const FIXTURE: SandboxData = {
  webhooks: [
    {
      id: 'whk_5f0c6a1e9b2d4c7a8e3f1b06',
      url: 'https://hooks.example.com/svc',
      events: ['message.received'],
      secret: 'whsec_example_only_do_not_use_0000000000000',
      created_at: EXAMPLE_CLOCK_MS - 86_400_000,
      updated_at: EXAMPLE_CLOCK_MS - 86_400_000,
    },
  ],
  deliveries: [
    {
      endpoint_id: 'whk_5f0c6a1e9b2d4c7a8e3f1b06',
      id: 'dlv_8c2e4a6b0d1f3a5c7e9b2d40',
      event_id: 'evt_3a9d1c7e5b2f4a8c6e0d1b37',
      event_type: 'message.received',
      latency_ms: 84,
      response_excerpt: '{"received":true}',
    },
  ],
  identities: {
    'support-bot': {
      contacts: [
        {
          fingerprint: sandboxFingerprint('ada'),
          display_name: 'Ada Lovelace',
          status: 'active',
          tools: [{ name: 'lookup_order', description: 'Find an order by its number.' }],
        },
        { fingerprint: sandboxFingerprint('grace'), display_name: 'Grace Hopper', status: 'pending_in' },
        {
          fingerprint: sandboxFingerprint('mallory'),
          display_name: 'Mallory',
          status: 'blocked',
        },
      ],
      integrations: [
        {
          slug: 'crm',
          endpoint: 'https://mcp.example.com/crm',
          tools: [{ name: 'find_customer', description: 'Look a customer up by email.' }],
          exposure: { entries: [{ tool: 'find_customer', mode: 'passthrough' }] },
        },
        {
          slug: 'calendar',
          endpoint: 'https://mcp.example.com/calendar',
          status: 'needs_authorization',
        },
      ],
    },
  },
  catalogue: [{ slug: 'tickets', endpoint: 'https://mcp.example.com/tickets' }],
};

/**
 * The mock's own card for a card in the service's signed format: the same party (fingerprint, endpoint,
 * name). The mock reads only its unsigned sandbox cards (docs/guide/open-choices.md, "The requestContact
 * example's card"), so the example's call reaches it with this one in place of the card the page shows.
 */
export function mockCardFor(card: string): string {
  const [prefix, version, payload] = card.split('.');
  if (`${prefix}.${version}` !== 'svc-card.v1' || payload === undefined)
    throw new Error(`not a card in the service's format: ${card.slice(0, 40)}`);
  const party = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
    fingerprint: string;
    endpoint: string;
    display_name: string;
  };
  return createSandboxCard({
    display_name: party.display_name,
    endpoint: party.endpoint,
    fingerprint: party.fingerprint,
  });
}

export function exampleSandbox() {
  return createSandbox({
    baseUrl: EXAMPLE_BASE_URL,
    data: FIXTURE,
    randomSeed: 'svc-kit-docs-examples',
    now: () => EXAMPLE_CLOCK_MS,
  });
}
