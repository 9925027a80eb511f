import { isAllowedPort } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGlobalUnicast } from '../../src/domain/address-policy.js';
import { DEFAULT_INTEGRATION_SETTINGS } from '../../src/features/integrations/settings.js';
import { createGuardedClient } from '../../src/outbound/guarded-client.js';
import { createGuardedFetch } from '../../src/outbound/guarded-fetch.js';
import { OutboundBlockedError, resolveCheckedAddresses } from '../../src/outbound/target-policy.js';
import { BACKENDS } from '../support/backends.js';
import { startCountingListener } from '../support/counting-listener.js';
import { call, createTenant, startTestService, TEST_DNS, type TestService } from '../support/harness.js';
import { addIdentity } from '../support/identity.js';
import { useStore } from '../support/service-lifecycle.js';
import { ADMITTED_FORMS, REFUSED_FORMS, SSRF_DOMAIN, ssrfDns } from '../support/ssrf-forms.js';

const DNS = ssrfDns();
const resolve = async (hostname: string) => {
  const addresses = DNS[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses;
};
const refusedNames = Object.keys(REFUSED_FORMS).map((key) => `${key}.${SSRF_DOMAIN}`);
const admittedNames = Object.keys(ADMITTED_FORMS).map((key) => `${key}.${SSRF_DOMAIN}`);

describe('globally routable unicast only (IANA special-purpose registries)', () => {
  it.each(Object.entries(REFUSED_FORMS))('refuses %s (%s)', (_name, address) => {
    expect(isGlobalUnicast(address)).toBe(false);
  });
  it.each(Object.entries(ADMITTED_FORMS))('admits %s (%s), judged as its IPv4 address', (_name, address) => {
    expect(isGlobalUnicast(address)).toBe(true);
  });
  it('refuses text the socket layer would not take as an address', () => {
    for (const text of ['127.1', '0x7f.0.0.1', '2130706433', 'example.com', '', '8.8.8.8 ']) {
      expect(isGlobalUnicast(text), text).toBe(false);
    }
  });
  it('admits 443 and 1024 to 65535, nothing else below 1024', () => {
    const port = (p: string) => isAllowedPort(new URL(`https://hooks.example.com:${p}/`));
    expect([port('443'), port('1024'), port('8443'), port('65535')]).toEqual([true, true, true, true]);
    expect([port('22'), port('25'), port('80'), port('389'), port('1023')]).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

/**
 * Connect time: what a lookup answers is checked before a socket opens, for the webhook/peer client and
 * for the MCP fetch alike (both use outbound/guarded-lookup.ts). A loopback listener counts connections.
 */
describe('the connection guard refuses every embedded form a lookup answers', () => {
  let listener: Awaited<ReturnType<typeof startCountingListener>>;
  let port = 0;
  beforeAll(async () => {
    listener = await startCountingListener();
    port = listener.port;
  });
  afterAll(() => listener.close());

  it('webhook deliveries and peer calls (guarded client): blocked, no connection', async () => {
    const client = createGuardedClient({ resolve, allowLocalhost: true, totalTimeoutMs: 3_000 });
    try {
      for (const name of refusedNames) {
        const outcome = await client.post(`https://${name}:${port}/hook`, {}, '{}');
        expect({ name, kind: outcome.kind }).toEqual({ name, kind: 'blocked' });
      }
    } finally {
      await client.close();
    }
    expect(listener.connections()).toBe(0);
  });

  it('MCP upstreams (guarded fetch): blocked, no connection', async () => {
    const guarded = createGuardedFetch({ resolve, allowLocalhost: true }, 2_000);
    try {
      for (const name of refusedNames) {
        const error = await guarded.fetch(`https://${name}:${port}/mcp`).then(
          () => undefined,
          (failure: unknown) => failure,
        );
        let current = error;
        while (current instanceof Error && !(current instanceof OutboundBlockedError)) {
          current = (current as { cause?: unknown }).cause;
        }
        expect({ name, blocked: current instanceof OutboundBlockedError }).toEqual({ name, blocked: true });
      }
    } finally {
      await guarded.close();
    }
    expect(listener.connections()).toBe(0);
  });

  it('a port below 1024 other than 443 is refused before any lookup', async () => {
    const client = createGuardedClient({ resolve, allowLocalhost: false });
    try {
      const outcome = await client.post('https://v4-global.ssrf.test:25/', {}, '{}');
      expect(outcome).toMatchObject({ kind: 'blocked', reason: expect.stringMatching(/port/) });
    } finally {
      await client.close();
    }
  });

  it('the lookup hands over the admitted forms unchanged (and only those)', async () => {
    for (const name of admittedNames) {
      expect(await resolveCheckedAddresses(name, { resolve, allowLocalhost: false })).toEqual(DNS[name]);
    }
  });
});

/** Registration over HTTP, on both backends: every refused form is a 400 and leaves no row. */
describe.each(BACKENDS)('registration refuses every embedded form on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  beforeAll(async () => {
    Object.assign(TEST_DNS, DNS);
    service = await startTestService(store, {
      extra: {
        integrations: {
          ...DEFAULT_INTEGRATION_SETTINGS,
          allowLocalhost: false,
          timeoutMs: 2_000,
          catalogue: {},
        },
      },
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('createWebhook and createIntegration', async () => {
    const tenant = await createTenant(service.ctx);
    const slug = 'ssrf-identity';
    await addIdentity(store.db, tenant.workspaceId, slug);
    for (const name of refusedNames) {
      const hook = await call(service, 'POST', '/v1/workspace/webhooks', {
        auth: { cookie: tenant.steppedUpSession },
        headers: { origin: new URL(service.baseUrl).origin },
        body: { url: `https://${name}/hook` },
      });
      expect({ name, status: hook.status, text: hook.text }).toMatchObject({
        name,
        status: 400,
        text: expect.stringContaining('private or reserved'),
      });
      const upstream = await call(service, 'POST', `/v1/identities/${slug}/integrations`, {
        auth: { key: tenant.key },
        body: { endpoint: `https://${name}/mcp`, slug: 'ssrf' },
      });
      expect({ name, status: upstream.status }).toEqual({ name, status: 400 });
    }
    const rows = await store.db.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM webhook_endpoints WHERE workspace_id = $1)::int
            + (SELECT count(*) FROM integrations WHERE workspace_id = $1)::int AS n`,
      [tenant.workspaceId],
    );
    expect(rows[0]?.n).toBe(0);
  });
});
