import { MAX_WEBHOOK_ENDPOINTS } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { TEST_EVENTS } from '../../src/features/sandbox/event-budget.js';
import type { OpenedStore } from '../../src/store/open.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import { BACKENDS } from '../support/backends.js';
import { call, createTenant, expectRefusal, startTestService, type TestService } from '../support/harness.js';

/**
 * Attack finding F24: a sandbox open to strangers must not turn one request into hundreds of outbound
 * POSTs. Endpoints per workspace are capped, and the sandbox's test events are budgeted per workspace.
 */
describe.each(BACKENDS)('a workspace cannot amplify its requests, on $name', (backend) => {
  let store: OpenedStore;
  let service: TestService;
  const clock = { at: Date.now() };

  beforeAll(async () => {
    store = await backend.open();
    service = await startTestService(store, {
      now: () => clock.at,
      extra: { sandboxRoutes: true, sandboxEventBudget: true },
    });
  });
  afterAll(async () => {
    await service?.close();
    await store?.close();
  });

  it(`caps live endpoints at ${MAX_WEBHOOK_ENDPOINTS} per workspace; deleting one makes room`, async () => {
    const tenant = await createTenant(service.ctx);
    const auth = { cookie: tenant.steppedUpSession };
    const create = (i: number) =>
      call(service, 'POST', '/v1/workspace/webhooks', {
        auth,
        body: { url: `https://hooks.example.com/hook${i}`, events: [] },
      });
    const ids: string[] = [];
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) {
      const created = await create(i);
      expect(created.status).toBe(201);
      ids.push((created.body as { endpoint: { id: string } }).endpoint.id);
    }
    expectRefusal(await create(99), 403, 'forbidden');
    expect((await call(service, 'DELETE', `/v1/workspace/webhooks/${ids[0]}`, { auth })).status).toBe(204);
    expect((await create(100)).status).toBe(201);
  });

  it(`budgets test events: ${TEST_EVENTS.capacity}, then one every 10 seconds`, async () => {
    const tenant = await createTenant(service.ctx);
    await insertIdentity(store.db, {
      id: newId('idn'),
      workspace_id: tenant.workspaceId,
      slug: `amp-${tenant.workspaceId.slice(-8)}`,
      created_at: clock.at,
    });
    const trigger = () =>
      call(service, 'POST', '/sandbox/events', {
        auth: { key: tenant.key },
        body: { type: 'message.received' },
      });
    // A trigger refused for what it says (no such identity) writes nothing and spends nothing.
    for (let i = 0; i < 3; i++) {
      const invalid = await call(service, 'POST', '/sandbox/events', {
        auth: { key: tenant.key },
        body: { type: 'message.received', identity: 'no-such-identity' },
      });
      expectRefusal(invalid, 400, 'invalid_request');
    }
    for (let i = 0; i < TEST_EVENTS.capacity; i++) expect((await trigger()).status).toBe(201);
    const refused = await trigger();
    expectRefusal(refused, 429, 'rate_limited');
    expect((refused.body as { error: { retry_after: number } }).error.retry_after).toBeLessThanOrEqual(10);
    clock.at += 10_000;
    expect((await trigger()).status).toBe(201);
  });
});
