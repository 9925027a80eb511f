import { randomBytes } from 'node:crypto';
import { Client } from '@svc-kit/client';
import { peerEndpointOf, signerFor } from '../../../src/peer/own-identity.js';
import type { OpenedStore } from '../../../src/store/open.js';
import { insertIdentity } from '../../../src/store/queries/identities.js';
import { TestClock } from '../../contacts/support.js';
import { startIntegrationInstance } from '../../integrations/support.js';
import { startStreamableUpstream, type Upstream } from '../../integrations/upstreams.js';
import type { Backend } from '../../support/backends.js';
import { createTenant } from '../../support/harness.js';
import type { Party, Target } from '../target.js';

const CATALOGUE = 'scenario-tools';

/** The wall clock plus an offset: real time, as an integrator's tests would have, moved on by hand. */
class WallClock extends TestClock {
  offset = 0;
  override readonly now = () => Date.now() + this.offset;
}

/**
 * The reference service on `backend`, over HTTP on 127.0.0.1: one instance serving /v1, the peer protocol
 * (parties on loopback admitted) and integrations, with a real MCP server (official SDK) as the catalogue
 * entry's upstream. Each party is an identity in a workspace of its own.
 */
export async function startServiceTarget(backend: Backend): Promise<Target> {
  const store: OpenedStore = await backend.open();
  const upstream: Upstream = await startStreamableUpstream();
  const clock = new WallClock();
  const instance = await startIntegrationInstance(store, clock, {
    allowLocalhost: true,
    catalogue: {
      [CATALOGUE]: { endpoint: upstream.url, transport: 'streamable-http', description: 'echo and add' },
    },
  });
  const sessions = new Map<string, string>();
  const party = async (label: string): Promise<Party> => {
    const tenant = await createTenant(instance.ctx);
    const slug = `${label}-${randomBytes(4).toString('hex')}`;
    const identityId = `idn_${randomBytes(8).toString('hex')}`;
    await insertIdentity(instance.ctx.db, {
      id: identityId,
      workspace_id: tenant.workspaceId,
      slug,
      created_at: instance.ctx.now(),
    });
    const signer = await signerFor(
      instance.ctx.db,
      instance.ctx.secretBox,
      { id: identityId, slug },
      peerEndpointOf(instance.baseUrl),
      instance.ctx.now(),
    );
    sessions.set(slug, tenant.steppedUpSession);
    return {
      slug,
      fingerprint: signer.fingerprint,
      card: signer.card,
      api: new Client({
        apiKey: tenant.key,
        baseUrl: instance.baseUrl,
        maxRetries: 0,
        validateResponses: true,
      }),
      key: tenant.key,
    };
  };
  return {
    name: `service on ${backend.name}`,
    capabilities: { peers: true, upstreams: true },
    baseUrl: instance.baseUrl,
    pair: async () => [await party('alice'), await party('bob')],
    sessionClient: (who) =>
      new Client({
        session: true,
        baseUrl: instance.baseUrl,
        maxRetries: 0,
        validateResponses: true,
        // The portal's origin, as a browser sends it: session writes without it are refused.
        headers: { cookie: sessions.get(who.slug) ?? '', origin: new URL(instance.baseUrl).origin },
      }),
    async deliverRequest(from, to) {
      await from.api.contacts.request(from.slug, { card: to.card });
    },
    advanceClock(ms) {
      clock.offset += ms;
    },
    catalogueEntry: CATALOGUE,
    webhookUrl: (path) => `https://hooks.example.com${path}`,
    fetch: (who, path, init = {}) =>
      fetch(`${instance.baseUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${who.key}`, ...(init.headers as Record<string, string>) },
      }),
    async close() {
      await instance.close();
      await upstream.close();
      await store.close();
    },
  };
}
