// Creating and removing webhook endpoints or relay listeners in a loop: every one is a row kept for the
// retention window after its removal, so one workspace could grow the endpoints table (which the relay's
// sweep reads for every tenant) at the rate it sends requests. New endpoints and listeners share a budget.
import { ENDPOINTS_CREATED, MAX_ENDPOINTS_PER_HOST } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenedStore } from '../../src/store/open.js';
import { createDeliveryTenant } from '../delivery/support.js';
import { startRelayService } from '../relay/support.js';
import { BACKENDS } from '../support/backends.js';
import { call, expectRefusal, type Tenant } from '../support/harness.js';

describe.each(BACKENDS)('endpoint churn, on $name', (backend) => {
  let store: OpenedStore;
  let service: Awaited<ReturnType<typeof startRelayService>>;

  beforeAll(async () => {
    store = await backend.open();
    service = await startRelayService(store, { soleInstance: backend.name === 'pglite' });
  });
  afterAll(async () => {
    await service?.close();
    await store?.close();
  });

  const create = (tenant: Tenant, n: number) =>
    call(service, 'POST', '/v1/workspace/webhooks', {
      auth: { cookie: tenant.steppedUpSession },
      body: { url: `https://churn${n}.hooks.example.com/hook` },
    });

  /** Opens a listener (its stream answers `ready`), then closes it as the CLI's Ctrl-C does. */
  async function openAndClose(tenant: Tenant): Promise<number> {
    const controller = new AbortController();
    const response = await fetch(`${service.baseUrl}/relay/v1/listen`, {
      headers: { authorization: `Bearer ${tenant.key}` },
      signal: controller.signal,
    });
    if (response.status !== 200) return response.status;
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    const id = /"listener_id":"([^"]+)"/.exec(text)![1]!;
    const closed = await call(service, 'DELETE', `/relay/v1/listeners/${id}`, { auth: { key: tenant.key } });
    controller.abort();
    expect(closed.status).toBe(204);
    return 200;
  }

  it('refuses a workspace that creates and removes endpoints and listeners past its budget', async () => {
    const tenant = await createDeliveryTenant(service);
    for (let n = 0; n < ENDPOINTS_CREATED.capacity - 1; n++) {
      const created = await create(tenant, n);
      expect(created.status).toBe(201);
      const id = (created.body as { endpoint: { id: string } }).endpoint.id;
      expect(
        (await call(service, 'DELETE', `/v1/workspace/webhooks/${id}`, { auth: { key: tenant.key } })).status,
      ).toBe(204);
    }
    expect(await openAndClose(tenant)).toBe(200);

    const refused = await create(tenant, 1_000);
    expectRefusal(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expectRefusal(
      await call(service, 'GET', '/relay/v1/listen', { auth: { key: tenant.key } }),
      429,
      'rate_limited',
    );
    const rows = await store.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1',
      [tenant.workspaceId],
    );
    expect(rows[0]!.n).toBe(ENDPOINTS_CREATED.capacity);

    // Another workspace is not held back by it.
    const other = await createDeliveryTenant(service);
    expect((await create(other, 0)).status).toBe(201);
    expect(await openAndClose(other)).toBe(200);
  });

  it('does not spend the budget on a create the endpoint cap refuses', async () => {
    const tenant = await createDeliveryTenant(service);
    // The most a workspace may have on one host: one more is refused, and costs nothing.
    for (let n = 0; n < MAX_ENDPOINTS_PER_HOST; n++) {
      expect(
        (
          await call(service, 'POST', '/v1/workspace/webhooks', {
            auth: { cookie: tenant.steppedUpSession },
            body: { url: `https://one.hooks.example.com/${n}` },
          })
        ).status,
      ).toBe(201);
    }
    for (let n = 0; n < ENDPOINTS_CREATED.capacity; n++) {
      const refused = await call(service, 'POST', '/v1/workspace/webhooks', {
        auth: { cookie: tenant.steppedUpSession },
        body: { url: 'https://one.hooks.example.com/more' },
      });
      expectRefusal(refused, 403, 'forbidden');
    }
    expect((await create(tenant, 0)).status).toBe(201);
  });
});
