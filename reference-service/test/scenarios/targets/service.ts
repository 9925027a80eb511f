import { randomBytes } from 'node:crypto';
import { Client } from '@svc-kit/client';
import pino from 'pino';
import { startDelivery } from '../../../src/delivery/start.js';
import { peerEndpointOf, signerFor } from '../../../src/peer/own-identity.js';
import type { OpenedStore } from '../../../src/store/open.js';
import { insertIdentity } from '../../../src/store/queries/identities.js';
import { setWorkspaceFlag } from '../../../src/store/queries/workspaces.js';
import { TestClock } from '../../contacts/support.js';
import { startIntegrationInstance } from '../../integrations/support.js';
import { startOAuthUpstream, startStreamableUpstream, type Upstream } from '../../integrations/upstreams.js';
import type { Backend } from '../../support/backends.js';
import { freePort } from '../../support/free-port.js';
import { createTenant } from '../../support/harness.js';
import { startUnansweredReceivers } from '../receiver.js';
import { LOCKED_UPSTREAM_CREDENTIAL, type Party, type Target } from '../target.js';

const CATALOGUE = 'scenario-tools';
const OAUTH_CATALOGUE = 'scenario-oauth';
const LOCKED_CATALOGUE = 'scenario-locked';
/** Short, so that a receiver that never answers is logged as such within a scenario's time. */
const DELIVERY_TIMEOUT_MS = 1_000;

/** The wall clock plus an offset: real time, as an integrator's tests would have, moved on by hand. */
class WallClock extends TestClock {
  offset = 0;
  override readonly now = () => Date.now() + this.offset;
}

/**
 * The reference service on `backend`, over HTTP on 127.0.0.1: one instance serving /v1, the peer protocol
 * (parties on loopback admitted) and integrations, with real MCP servers (official SDK; one behind OAuth)
 * as the catalogue entries' upstreams, and its delivery worker running (receivers on loopback admitted).
 * Each party is an identity in a workspace of its own.
 */
export async function startServiceTarget(backend: Backend): Promise<Target> {
  const store: OpenedStore = await backend.open();
  const upstream: Upstream = await startStreamableUpstream();
  const oauthUpstream: Upstream = await startOAuthUpstream();
  const lockedUpstream: Upstream = await startStreamableUpstream(LOCKED_UPSTREAM_CREDENTIAL);
  const clock = new WallClock();
  const instance = await startIntegrationInstance(store, clock, {
    allowLocalhost: true,
    allowLocalhostWebhooks: true,
    catalogue: {
      [CATALOGUE]: { endpoint: upstream.url, transport: 'streamable-http', description: 'echo and add' },
      [OAUTH_CATALOGUE]: {
        endpoint: oauthUpstream.url,
        transport: 'streamable-http',
        description: 'echo and add, behind OAuth',
      },
      [LOCKED_CATALOGUE]: {
        endpoint: lockedUpstream.url,
        transport: 'streamable-http',
        description: 'echo and add, behind a header credential',
      },
    },
  });
  const delivery = await startDelivery(instance.ctx, pino({ level: 'silent' }), {
    pollIntervalMs: 200,
    connectTimeoutMs: DELIVERY_TIMEOUT_MS,
    totalTimeoutMs: DELIVERY_TIMEOUT_MS,
  });
  const receivers: { close(): Promise<void> }[] = [];
  const sessions = new Map<string, string>();
  const workspaces = new Map<string, string>();
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
    workspaces.set(slug, tenant.workspaceId);
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
    sessionHeaders: (who) => ({
      cookie: sessions.get(who.slug) ?? '',
      origin: new URL(instance.baseUrl).origin,
    }),
    async unreachableContact(who) {
      const silent = await party('silent');
      await who.api.contacts.request(who.slug, { card: silent.card });
      await silent.api.contacts.approve(silent.slug, who.fingerprint);
      // The peer goes away: a port that was just free, where nothing listens.
      const port = await freePort();
      await instance.ctx.db.query(
        `UPDATE contacts SET endpoint = $1
          WHERE fingerprint = $2 AND identity_id = (SELECT id FROM identities WHERE slug = $3)`,
        [`http://127.0.0.1:${port}/peer/v1`, silent.fingerprint, who.slug],
      );
      return silent.fingerprint;
    },
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
    oauthCatalogueEntry: OAUTH_CATALOGUE,
    lockedCatalogueEntry: LOCKED_CATALOGUE,
    async unansweredReceivers(who) {
      await setWorkspaceFlag(instance.ctx.db, workspaces.get(who.slug) ?? '', 'webhooks_enabled', true);
      const unanswered = await startUnansweredReceivers();
      receivers.push(unanswered);
      return unanswered;
    },
    async setWebhooksEnabled(who, enabled) {
      await setWorkspaceFlag(instance.ctx.db, workspaces.get(who.slug) ?? '', 'webhooks_enabled', enabled);
    },
    webhookUrl: (path, subdomain) => `https://${subdomain ? `${subdomain}.` : ''}hooks.example.com${path}`,
    fetch: (who, path, init = {}) =>
      fetch(`${instance.baseUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${who.key}`, ...(init.headers as Record<string, string>) },
      }),
    async close() {
      await delivery.stop();
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await instance.close();
      await upstream.close();
      await oauthUpstream.close();
      await lockedUpstream.close();
      await store.close();
    },
  };
}
