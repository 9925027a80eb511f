import { Client } from '@svc-kit/client';
import {
  createSandbox,
  createSandboxCard,
  SANDBOX_API_KEY,
  SESSION_COOKIE,
  sandboxFingerprint,
} from '@svc-kit/mock';
import { setupServer } from 'msw/node';
import type { Party, Target } from '../target.js';

const BASE_URL = 'https://api.scenarios.test';
const CATALOGUE = 'scenario-tools';
const OAUTH_CATALOGUE = 'scenario-oauth';
const LOCKED_CATALOGUE = 'scenario-locked';
const TOOLS = [
  { name: 'echo', description: 'Echoes the text back.' },
  { name: 'add', description: 'Adds two numbers.' },
];

/** The mock (`@svc-kit/mock`) behind msw's `setupServer`: no network, no peers, no budgets of its own. */
export async function startMockTarget(): Promise<Target> {
  let offset = 0;
  const sandbox = createSandbox({
    baseUrl: BASE_URL,
    now: () => Date.now() + offset,
    data: {
      catalogue: [
        { slug: CATALOGUE, endpoint: 'https://tools.scenarios.test/mcp', tools: TOOLS },
        {
          slug: OAUTH_CATALOGUE,
          endpoint: 'https://oauth-tools.scenarios.test/mcp',
          tools: TOOLS,
          oauth: true,
        },
        // The mock's model of an upstream that asks for a credential: authorization is needed without one.
        {
          slug: LOCKED_CATALOGUE,
          endpoint: 'https://locked-tools.scenarios.test/mcp',
          tools: TOOLS,
          oauth: true,
        },
      ],
    },
  });
  const server = setupServer(...sandbox.handlers);
  server.listen({ onUnhandledRequest: 'error' });
  let made = 0;
  const sessionHeaders = {
    cookie: `${SESSION_COOKIE}=scenario-session`,
    origin: new URL(BASE_URL).origin,
  };
  const party = (label: string): Party => {
    made += 1;
    const slug = `${label}-${made}`;
    const fingerprint = sandboxFingerprint(slug);
    return {
      slug,
      fingerprint,
      card: createSandboxCard({
        display_name: slug,
        endpoint: `https://peers.scenarios.test/${slug}`,
        fingerprint,
      }),
      api: new Client({ apiKey: SANDBOX_API_KEY, baseUrl: BASE_URL, maxRetries: 0, validateResponses: true }),
      key: SANDBOX_API_KEY,
    };
  };
  return {
    name: 'mock',
    // The mock never dials: no peers, no upstreams, no webhook deliveries (on purpose: it is a sandbox).
    capabilities: { peers: false, upstreams: false, delivers: false },
    baseUrl: BASE_URL,
    pair: async () => [party('alice'), party('bob')],
    sessionClient: () =>
      new Client({
        session: true,
        baseUrl: BASE_URL,
        maxRetries: 0,
        validateResponses: true,
        headers: sessionHeaders,
      }),
    sessionHeaders: () => ({ ...sessionHeaders }),
    async unreachableContact(who) {
      const silent = party('silent');
      sandbox.seed({
        identities: {
          [who.slug]: {
            contacts: [
              {
                fingerprint: silent.fingerprint,
                display_name: silent.slug,
                status: 'active',
                reachable: false,
              },
            ],
          },
        },
      });
      return silent.fingerprint;
    },
    async deliverRequest(from, to) {
      await from.api.contacts.request(from.slug, { card: to.card });
      // What the peer protocol would have done on the other side: a received request.
      sandbox.seed({
        identities: {
          [to.slug]: {
            contacts: [{ fingerprint: from.fingerprint, display_name: from.slug, status: 'pending_in' }],
          },
        },
      });
    },
    advanceClock(ms) {
      offset += ms;
    },
    catalogueEntry: CATALOGUE,
    oauthCatalogueEntry: OAUTH_CATALOGUE,
    lockedCatalogueEntry: LOCKED_CATALOGUE,
    unansweredReceivers: async () => ({
      refused: 'https://hooks.example.com/refused',
      silent: 'https://hooks.example.com/silent',
    }),
    webhookUrl: (path) => `https://hooks.example.com${path}`,
    fetch: (who, path, init = {}) =>
      fetch(`${BASE_URL}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${who.key}`, ...(init.headers as Record<string, string>) },
      }),
    async close() {
      server.close();
    },
  };
}
