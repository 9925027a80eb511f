// Every exchange with an MCP upstream spends a budget of the host it dials, shared by all workspaces (and a
// workspace's share of it): tenants pointing integrations at one host, or at a third party's server,
// together make the service send it a bounded stream, whichever door (API or peer tool call) they use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budget } from '../../src/domain/door-limits.js';
import type { UpstreamHostBudgets } from '../../src/domain/upstream-host-limits.js';
import { befriend, createParty, type Instance, type Party, TestClock } from '../contacts/support.js';
import { BACKENDS } from '../support/backends.js';
import { call, expectRefusal } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { startIntegrationInstance } from './support.js';
import { startStreamableUpstream, type Upstream } from './upstreams.js';

/** Narrow budgets, so that a test reaches them with a handful of exchanges (the clock stands still). */
const MINUTE = 60_000;
const BUDGETS: UpstreamHostBudgets = {
  perHost: budget(6, MINUTE, 'exchanges with this MCP host'),
  perWorkspaceOnHost: budget(4, MINUTE, 'exchanges of this workspace with this MCP host'),
};

describe.each(BACKENDS)('exchanges per upstream host, on $name', (backend) => {
  const clock = new TestClock();
  const store = useStore(backend);
  let one: Instance;
  let eve: Party;
  let dan: Party;
  let bob: Party;
  let shared: Upstream;
  let elsewhere: Upstream;

  beforeAll(async () => {
    one = await startIntegrationInstance(store, clock, { allowLocalhost: true, hostBudgets: BUDGETS });
    eve = await createParty(one, 'eve');
    dan = await createParty(one, 'dan');
    bob = await createParty(one, 'bob');
    shared = await startStreamableUpstream();
    elsewhere = await startStreamableUpstream();
  });
  afterAll(async () => {
    await one?.close();
    await shared?.close();
    await elsewhere?.close();
  });

  const create = (party: Party, slug: string, endpoint: string) =>
    call(one, 'POST', `/v1/identities/${party.slug}/integrations`, {
      auth: { key: party.key },
      body: { slug, endpoint, transport: 'streamable-http' },
    });
  const exposure = (party: Party, slug: string) =>
    call(one, 'GET', `/v1/identities/${party.slug}/integrations/${slug}/exposure`, {
      auth: { key: party.key },
    });
  const rowOf = async (party: Party, slug: string) =>
    (
      await store.db.query<Record<string, unknown>>(
        'SELECT status, trouble, catalog, updated_at FROM integrations WHERE identity_id = $1 AND slug = $2',
        [party.identityId, slug],
      )
    )[0];
  const eventCount = async () =>
    (await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM events'))[0]!.n;

  it('bounds two workspaces together on one host, refuses in types, and leaves other hosts alone', async () => {
    expect((await create(eve, 'up', shared.url)).status).toBe(201);
    const perExchange = shared.headers.length;
    expect(perExchange).toBeGreaterThan(0);
    expect((await create(dan, 'up', shared.url)).status).toBe(201);

    // Both tenants at once, more than the host holds: 4 of the 6 exchanges are left, and no more go out.
    const reads = await Promise.all(
      Array.from({ length: 10 }, (_, n) => exposure(n % 2 === 0 ? eve : dan, 'up')),
    );
    const served = reads.filter((read) => read.status === 200).length;
    expect(served).toBe(BUDGETS.perHost.capacity - 2);
    for (const read of reads.filter((each) => each.status !== 200)) {
      expectRefusal(read, 429, 'rate_limited');
      const retryAfter = Number(read.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect((read.body as { error: { retry_after: number } }).error.retry_after).toBe(retryAfter);
    }
    expect(shared.headers.length).toBe(BUDGETS.perHost.capacity * perExchange);

    // Refused with nothing written: the row as it was, no event, no half-created integration.
    const before = await rowOf(dan, 'up');
    const events = await eventCount();
    expectRefusal(await exposure(dan, 'up'), 429, 'rate_limited');
    expectRefusal(await create(dan, 'more', shared.url), 429, 'rate_limited');
    // Starting OAuth dials the host too: 429, not the 502 of an upstream that failed.
    const authorize = await call(one, 'POST', `/v1/identities/${dan.slug}/integrations/up/authorize`, {
      auth: { key: dan.key },
      body: {},
    });
    expectRefusal(authorize, 429, 'rate_limited');
    expect(await rowOf(dan, 'up')).toEqual(before);
    expect(await rowOf(dan, 'more')).toBeUndefined();
    expect(await eventCount()).toBe(events);

    // A contact's tool call: the peer's typed answer for an upstream it cannot reach now, not an error.
    await dan.api.integrations.setExposure(dan.slug, 'up', {
      entries: [{ tool: 'echo', mode: 'passthrough' }],
    });
    await befriend(bob, dan);
    await dan.api.contacts.update(dan.slug, bob.fingerprint, { preset: 'close' });
    const refusedCall = await bob.api.contacts.callTool(bob.slug, dan.fingerprint, {
      tool: 'echo',
      arguments: { text: 'hi' },
    });
    expect(refusedCall).toEqual({
      ok: false,
      result: {
        error: 'upstream_failed',
        status: 'unreachable',
        message: expect.stringContaining('exchanges'),
        retry_after: expect.any(Number),
      },
    });
    expect(shared.headers.length).toBe(BUDGETS.perHost.capacity * perExchange);
    expect((await rowOf(dan, 'up'))?.status).toBe('healthy');

    // Another host is not touched by this one's budget.
    const other = await create(dan, 'other', elsewhere.url.replace('127.0.0.1', 'localhost'));
    expect(other.status).toBe(201);
    expect((other.body as { integration: { status: string } }).integration.status).toBe('healthy');
    expect((await exposure(dan, 'other')).status).toBe(200);

    // One exchange comes back each interval, and the contact's call then goes through.
    clock.advance(1 / BUDGETS.perHost.perMs);
    const called = await bob.api.contacts.callTool(bob.slug, dan.fingerprint, {
      tool: 'echo',
      arguments: { text: 'hi' },
    });
    expect(called.ok).toBe(true);
    expectRefusal(await exposure(eve, 'up'), 429, 'rate_limited');
    expect(shared.headers.length).toBe((BUDGETS.perHost.capacity + 1) * perExchange);
  });

  it('gives one workspace at most its share of a host', async () => {
    // Every bucket full again; the first test's tenants spent some of `localhost` too.
    clock.advance(BUDGETS.perHost.capacity / BUDGETS.perHost.perMs);
    const host = await startStreamableUpstream();
    try {
      const url = host.url.replace('127.0.0.1', 'localhost');
      const carol = await createParty(one, 'carol');
      expect((await create(carol, 'up', url)).status).toBe(201);
      for (let n = 1; n < BUDGETS.perWorkspaceOnHost.capacity; n++) {
        expect((await exposure(carol, 'up')).status).toBe(200);
      }
      expectRefusal(await exposure(carol, 'up'), 429, 'rate_limited');
      // The host still has room for another workspace.
      const frank = await createParty(one, 'frank');
      expect((await create(frank, 'up', url)).status).toBe(201);
    } finally {
      await host.close();
    }
  });
});
