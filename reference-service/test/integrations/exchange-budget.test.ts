// getExposure re-lists the upstream's tools on every read (four requests out, a catalog of up to 1 MiB
// parsed and written), and createIntegration and authorizeIntegration dial it too: with no budget, one key
// made the service call a host of its choosing as fast as it sent requests. They share a workspace budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_EXCHANGES } from '../../src/features/integrations/rules.js';
import type { OpenedStore } from '../../src/store/open.js';
import { createParty, type Instance, type Party, TestClock } from '../contacts/support.js';
import { BACKENDS } from '../support/backends.js';
import { call, expectRefusal } from '../support/harness.js';
import { startIntegrationInstance } from './support.js';
import { startStreamableUpstream, type Upstream } from './upstreams.js';

describe.each(BACKENDS)('exchanges with upstreams a workspace starts, on $name', (backend) => {
  const clock = new TestClock();
  let store: OpenedStore;
  let one: Instance;
  let eve: Party;
  let bob: Party;
  let upstream: Upstream;

  beforeAll(async () => {
    store = await backend.open();
    one = await startIntegrationInstance(store, clock, { allowLocalhost: true });
    eve = await createParty(one, 'eve');
    bob = await createParty(one, 'bob');
    upstream = await startStreamableUpstream();
  });
  afterAll(async () => {
    await one?.close();
    await upstream?.close();
    await store?.close();
  });

  const create = (party: Party, slug: string) =>
    call(one, 'POST', `/v1/identities/${party.slug}/integrations`, {
      auth: { key: party.key },
      body: { slug, endpoint: upstream.url },
    });
  const exposure = (party: Party, slug: string) =>
    call(one, 'GET', `/v1/identities/${party.slug}/integrations/${slug}/exposure`, {
      auth: { key: party.key },
    });

  it('are refused past the budget before the upstream is dialled; other workspaces keep theirs', async () => {
    expect((await create(eve, 'up')).status).toBe(201);
    for (let n = 1; n < UPSTREAM_EXCHANGES.capacity; n++)
      expect((await exposure(eve, 'up')).status).toBe(200);
    const dialled = upstream.headers.length;

    const refused = await exposure(eve, 'up');
    expectRefusal(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expectRefusal(await create(eve, 'more'), 429, 'rate_limited');
    expect(upstream.headers.length).toBe(dialled);
    const rows = await store.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM integrations WHERE slug = $1',
      ['more'],
    );
    expect(rows[0]!.n).toBe(0);

    expect((await create(bob, 'up')).status).toBe(201);
    expect((await exposure(bob, 'up')).status).toBe(200);

    // One comes back each interval.
    clock.advance(1 / UPSTREAM_EXCHANGES.perMs);
    expect((await exposure(eve, 'up')).status).toBe(200);
    expectRefusal(await exposure(eve, 'up'), 429, 'rate_limited');
  });
});
