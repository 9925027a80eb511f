import { Client } from '@svc-kit/client';
import {
  createSandbox,
  createSandboxCard,
  SANDBOX_API_KEY,
  type Sandbox,
  SESSION_COOKIE,
  sandboxFingerprint,
} from '@svc-kit/mock';
import { setupServer } from 'msw/node';
import { startUnansweredReceivers } from '../receiver.js';
import type { Party, Target } from '../target.js';

const BASE_URL = 'https://api.scenarios.test';
const CATALOGUE = 'scenario-tools';
const OAUTH_CATALOGUE = 'scenario-oauth';
const LOCKED_CATALOGUE = 'scenario-locked';
const TOOLS = [
  { name: 'echo', description: 'Echoes the text back.' },
  { name: 'add', description: 'Adds two numbers.' },
];
/** As the service target's delivery timeout: a receiver that never answers is logged within a scenario. */
const DELIVERY_TIMEOUT_MS = 1_000;

/**
 * The mock (`@svc-kit/mock`) behind msw's `setupServer`: no peers and no upstreams of its own. Each party
 * is a sandbox of its own (its one workspace), as each party of the service target is a workspace of its
 * own, so that a party's endpoints receive only its own events. The sandboxes deliver to receivers on
 * loopback through the platform's fetch, past msw.
 */
export async function startMockTarget(): Promise<Target> {
  let offset = 0;
  const sandboxFor = (baseUrl: string): Sandbox =>
    createSandbox({
      baseUrl,
      now: () => Date.now() + offset,
      delivery: { allowLoopback: true, timeoutMs: DELIVERY_TIMEOUT_MS },
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
  const first = sandboxFor(BASE_URL);
  const server = setupServer(...first.handlers);
  server.listen({ onUnhandledRequest: 'error' });
  const sandboxes = new Map<string, Sandbox>();
  const receivers: { close(): Promise<void> }[] = [];
  let made = 0;
  const party = (label: string): Party => {
    made += 1;
    const slug = `${label}-${made}`;
    const sandbox = sandboxFor(`https://api-${slug}.scenarios.test`);
    server.use(...sandbox.handlers);
    sandboxes.set(slug, sandbox);
    const fingerprint = sandboxFingerprint(slug);
    return {
      slug,
      fingerprint,
      card: createSandboxCard({
        display_name: slug,
        endpoint: `https://peers.scenarios.test/${slug}`,
        fingerprint,
      }),
      api: new Client({
        apiKey: SANDBOX_API_KEY,
        baseUrl: sandbox.baseUrl,
        maxRetries: 0,
        validateResponses: true,
      }),
      key: SANDBOX_API_KEY,
    };
  };
  const sandboxOf = (who: Party): Sandbox => {
    const sandbox = sandboxes.get(who.slug);
    if (!sandbox) throw new Error(`no sandbox for ${who.slug}`);
    return sandbox;
  };
  const sessionHeadersOf = (who: Party) => ({
    cookie: `${SESSION_COOKIE}=scenario-session`,
    origin: new URL(sandboxOf(who).baseUrl).origin,
  });
  return {
    name: 'mock',
    // The mock never dials a peer or an upstream (on purpose: it is a sandbox).
    capabilities: { peers: false, upstreams: false },
    baseUrl: BASE_URL,
    pair: async () => [party('alice'), party('bob')],
    sessionClient: (who) => {
      const { baseUrl } = sandboxOf(who);
      return new Client({
        session: true,
        baseUrl,
        maxRetries: 0,
        validateResponses: true,
        headers: sessionHeadersOf(who),
      });
    },
    sessionHeaders: (who) => sessionHeadersOf(who),
    async unreachableContact(who) {
      const silent = party('silent');
      sandboxOf(who).seed({
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
      // What the peer protocol would have done on the other side: a received request, and its event.
      sandboxOf(to)
        .peer(to.slug, from.fingerprint)
        .ask({ display_name: from.slug, endpoint: `https://peers.scenarios.test/${from.slug}` });
    },
    advanceClock(ms) {
      offset += ms;
    },
    catalogueEntry: CATALOGUE,
    oauthCatalogueEntry: OAUTH_CATALOGUE,
    lockedCatalogueEntry: LOCKED_CATALOGUE,
    async unansweredReceivers() {
      const unanswered = await startUnansweredReceivers();
      receivers.push(unanswered);
      return unanswered;
    },
    async setWebhooksEnabled(who, enabled) {
      sandboxOf(who).seed({ workspace: { webhooksEnabled: enabled } });
    },
    webhookUrl: (path, subdomain) => `https://${subdomain ? `${subdomain}.` : ''}hooks.example.com${path}`,
    fetch: (who, path, init = {}) =>
      fetch(`${sandboxOf(who).baseUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${who.key}`, ...(init.headers as Record<string, string>) },
      }),
    async close() {
      await Promise.all([...sandboxes.values()].map((sandbox) => sandbox.deliveries.settled()));
      await Promise.all(receivers.map((receiver) => receiver.close()));
      server.close();
    },
  };
}
