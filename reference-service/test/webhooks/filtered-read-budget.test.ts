import { FILTERED_LOG_READS, limitRefusal } from '@svc-kit/contract';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { dumpDatabase } from '../support/db-dump.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { call, createTenant, expectRefusal, type Tenant } from '../support/harness.js';
import { serviceForTests } from '../support/service-lifecycle.js';

const { capacity, perMs } = FILTERED_LOG_READS;
const EVENTS = ['evt_budget_a', 'evt_budget_b', 'evt_budget_c'];

// The scenario suite runs the rule on the mock and both backends on the wall clock; here the clock stands
// still, so the bucket is counted exactly and the database can be compared across a refusal.
describe.each(BACKENDS)('the budget of filtered delivery log reads, on $name', (backend) => {
  let clock = Date.now();
  const running = serviceForTests({ open: () => backend.open(), now: () => clock });

  /** A workspace with an endpoint whose log holds one delivered attempt per event. */
  async function tenantWithLog(): Promise<{ tenant: Tenant; endpointId: string }> {
    const { ctx } = running.service;
    const tenant = await createTenant(ctx);
    const endpoint = await seedActiveEndpoint(
      ctx.db,
      ctx.secretBox,
      tenant.workspaceId,
      'https://hooks.example.com/in',
    );
    await ctx.db.query(
      `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status, created_at)
       SELECT webhook_delivery_id(e, $2), $1, $2, e, 'message.received', 1, 'delivered', $3::bigint
         FROM unnest($4::text[]) AS e`,
      [tenant.workspaceId, endpoint.id, clock - 1_000, EVENTS],
    );
    return { tenant, endpointId: endpoint.id };
  }

  const read = (who: { tenant: Tenant; endpointId: string }, query: string) =>
    call(running.service, 'GET', `/v1/workspace/webhooks/${who.endpointId}/deliveries?limit=5${query}`, {
      auth: { key: who.tenant.key },
    });
  const found = async (who: { tenant: Tenant; endpointId: string }, query: string) => {
    const answer = await read(who, query);
    expect(answer.status).toBe(200);
    return (answer.body as { deliveries: unknown[] }).deliveries.length;
  };

  it('spends a burst per workspace, then 429 with Retry-After that writes nothing; other reads go on', async () => {
    const alice = await tenantWithLog();
    const bob = await tenantWithLog();
    for (let i = 0; i < capacity; i++)
      expect(await found(alice, i % 2 ? '&status=delivered' : '&event_type=message.received')).toBe(3);

    const before = await dumpDatabase(running.store.db);
    const refused = await read(alice, '&status=delivered&event_type=message.received');
    expectRefusal(refused, 429, 'rate_limited');
    const error = (refused.body as { error: { retry_after: number; message: string } }).error;
    // An empty bucket waits a whole token's refill; the words are the contract's, as the mock's are.
    const expected = limitRefusal(FILTERED_LOG_READS, 1 / perMs);
    expect(error).toMatchObject({ retry_after: expected.retryAfter, message: expected.message });
    expect(refused.headers.get('retry-after')).toBe(String(error.retry_after));
    for (let i = 0; i < 3; i++) expectRefusal(await read(alice, '&status=failed'), 429, 'rate_limited');
    // Nothing written by the refusals, the bucket included: a refused read spends nothing.
    expect(await dumpDatabase(running.store.db)).toBe(before);

    // The unfiltered read and a lookup by event id do not go through the window and are not budgeted.
    expect(await found(alice, '')).toBe(3);
    expect(await found(alice, `&event_id=${EVENTS[0]}&status=delivered`)).toBe(1);
    // Another workspace has its whole burst.
    for (let i = 0; i < capacity; i++) expect(await found(bob, '&status=delivered')).toBe(3);
    expectRefusal(await read(bob, '&status=delivered'), 429, 'rate_limited');

    // One token's refill later exactly one more filtered read, as if the refusals had never been.
    clock += 1 / perMs;
    expect(await found(alice, '&status=delivered')).toBe(3);
    expectRefusal(await read(alice, '&status=delivered'), 429, 'rate_limited');
  });
});
