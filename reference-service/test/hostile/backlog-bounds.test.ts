import { randomBytes } from 'node:crypto';
import { MAX_WEBHOOK_ENDPOINTS } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DELIVERIES_PER_WORKSPACE,
  PEER_BACKLOG_MS,
  WORKSPACE_BACKLOG_MS,
} from '../../src/domain/delivery-limits.js';
import { newId } from '../../src/domain/ids.js';
import { DEFAULT_INTEGRATION_SETTINGS } from '../../src/features/integrations/settings.js';
import { peerEndpointOf, signerFor } from '../../src/peer/own-identity.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import { startStreamableUpstream, type Upstream } from '../integrations/upstreams.js';
import { BACKENDS } from '../support/backends.js';
import { call, createTenant, startTestService, type TestService } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { stranger } from '../support/stranger.js';

/** Rows a workspace may have waiting for its pace before its owner's operations are refused. */
const BOUND = WORKSPACE_BACKLOG_MS * DELIVERIES_PER_WORKSPACE.perMs;
/** The same for the events its peers cause: half of it. */
const PEER_BOUND = PEER_BACKLOG_MS * DELIVERIES_PER_WORKSPACE.perMs;

type Stranger = ReturnType<typeof stranger>;

/**
 * Review of the delivery backlog's bound (event-flood.test.ts), attacked over HTTP: strangers' requests
 * to a workspace of many identities could hold it over the bound, and its owner refused; a silently
 * blocked party was answered apart from the others over it; and creating an integration could reach
 * the upstream before the backlog refused its event. The clock stands still, so every bound is exact.
 */
describe.each(BACKENDS)('the backlog’s bounds, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let upstream: Upstream;
  const clock = { at: Date.now() };

  beforeAll(async () => {
    upstream = await startStreamableUpstream();
    service = await startTestService(store, {
      allowLocalhostWebhooks: true,
      now: () => clock.at,
      extra: { integrations: { ...DEFAULT_INTEGRATION_SETTINGS, allowLocalhost: true, timeoutMs: 5000 } },
      // Hundreds of renames while the clock stands still: the request budget would refuse them first.
      requests: undefined,
    });
  });
  afterAll(async () => {
    await service?.close();
    await upstream?.close();
  });

  /**
   * A workspace with every endpoint it may have and one identity, which a stranger asked: its owner
   * renames that contact to fill the backlog, one event to every endpoint each.
   */
  async function workspace() {
    const tenant = await createTenant(service.ctx, { webhooksEnabled: true });
    const identity = { id: newId('idn'), slug: `bounds-${randomBytes(4).toString('hex')}` };
    await insertIdentity(store.db, { ...identity, workspace_id: tenant.workspaceId, created_at: clock.at });
    const endpoint = peerEndpointOf(service.baseUrl);
    const { fingerprint } = await signerFor(store.db, service.ctx.secretBox, identity, endpoint, clock.at);
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) {
      const created = await call(service, 'POST', '/v1/workspace/webhooks', {
        auth: { cookie: tenant.steppedUpSession },
        body: { url: `http://localhost:1/bounds${i}`, events: [] },
      });
      expect(created.status).toBe(201);
    }
    const ask = (who: Stranger) => who.request(service.baseUrl, fingerprint, clock.at);
    const auth = { key: tenant.key };
    const path = (who: Stranger, action: string) =>
      `/v1/identities/${identity.slug}/contacts/${encodeURIComponent(who.fingerprint)}/${action}`;
    const contact = (who: Stranger, action: string) => call(service, 'POST', path(who, action), { auth });
    const renamed = stranger();
    expect((await ask(renamed)).status).toBe(200);
    const rename = (petname: string) =>
      call(service, 'PATCH', path(renamed, 'petname'), { auth, body: { petname } });
    /** Events and delivery rows of the workspace, and its contacts' rows. */
    const snapshot = async () =>
      (
        await store.db.query<{ events: number; deliveries: number; contacts: string }>(
          `SELECT (SELECT count(*)::int FROM events WHERE workspace_id = $1) AS events,
                  (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1) AS deliveries,
                  (SELECT string_agg(fingerprint || status || updated_at, ',' ORDER BY fingerprint)
                     FROM contacts WHERE identity_id = $2) AS contacts`,
          [tenant.workspaceId, identity.id],
        )
      )[0]!;
    /** The owner renames until more than `rows` rows wait for the pace (all past the bucket's capacity). */
    const fill = async (rows: number) => {
      for (let i = 0; (await snapshot()).deliveries - DELIVERIES_PER_WORKSPACE.capacity <= rows; i++) {
        expect((await rename(`name ${i}`)).status).toBe(200);
      }
    };
    return { tenant, identity, ask, contact, rename, snapshot, fill };
  }

  /** A peer call's answer, but for what differs from call to call (the request id, the signature). */
  async function seen(answer: Response) {
    const body = (await answer.json()) as { error?: { request_id?: string } };
    delete body.error?.request_id;
    return { status: answer.status, retryAfter: answer.headers.get('retry-after'), body };
  }

  it('refuses peers past half the bound, a blocked one alike, while the owner is still admitted', async () => {
    const w = await workspace();
    // A former contact, silently blocked: approved (not told: nobody serves its endpoint), then blocked.
    const blocked = stranger();
    expect((await w.ask(blocked)).status).toBe(200);
    expect((await w.contact(blocked, 'approve')).status).toBe(200);
    expect((await w.contact(blocked, 'block')).status).toBe(200);
    // Under the peers' bound the block is silent: its request is answered as a stranger's.
    const under = await seen(await w.ask(stranger()));
    expect(under).toMatchObject({ status: 200, body: { status: 'pending' } });
    expect(await seen(await w.ask(blocked))).toEqual(under);

    await w.fill(PEER_BOUND);
    const before = await w.snapshot();
    expect(before.deliveries - DELIVERIES_PER_WORKSPACE.capacity).toBeLessThan(BOUND);
    // Past it, a stranger is refused in the peer protocol's words, and a blocked party exactly alike.
    const over = await seen(await w.ask(stranger()));
    expect(over).toMatchObject({ status: 429, body: { error: { code: 'rate_limited' } } });
    expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(await seen(await w.ask(blocked))).toEqual(over);
    expect(await w.snapshot()).toEqual(before);
    // Strangers alone stop here, under the bound: the owner's own operations are still admitted.
    expect((await w.rename('the owner’s')).status).toBe(200);
    expect((await w.snapshot()).events).toBe(before.events + 1);
  }, 120_000);

  it('checks the bound before an integration’s upstream is called, and records it once it was', async () => {
    const w = await workspace();
    const create = (slug: string) =>
      call(service, 'POST', `/v1/identities/${w.identity.slug}/integrations`, {
        auth: { key: w.tenant.key },
        body: { slug, endpoint: upstream.url },
      });
    // Just under the bound when checked, over it once the upstream is called: the creation is recorded.
    await w.fill(BOUND - MAX_WEBHOOK_ENDPOINTS);
    upstream.arriving = async () => {
      upstream.arriving = undefined;
      expect((await w.rename('meanwhile')).status).toBe(200);
    };
    expect((await create('raced')).status).toBe(201);
    expect(upstream.arriving).toBeUndefined();
    // Over the bound, the creation is refused before the upstream hears of it, and leaves no row.
    const heard = upstream.headers.length;
    const refused = await create('late');
    expect(refused.status).toBe(429);
    expect(upstream.headers.length).toBe(heard);
    const slugs = await store.db.query<{ slug: string }>(
      'SELECT slug FROM integrations WHERE workspace_id = $1',
      [w.tenant.workspaceId],
    );
    expect(slugs).toEqual([{ slug: 'raced' }]);
    // Once back under, the same creation reaches the upstream and is recorded.
    clock.at += Number(refused.headers.get('retry-after')) * 1000;
    expect((await create('late')).status).toBe(201);
    expect(upstream.headers.length).toBeGreaterThan(heard);
  }, 120_000);
});
