import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/domain/ids.js';
import { TEST_EVENTS } from '../src/features/sandbox/trigger.js';
import { insertIdentity } from '../src/store/queries/identities.js';
import { removeEndpoint, setEndpointStatus } from '../src/store/queries/webhook-endpoints.js';
import { BACKENDS } from './support/backends.js';
import { seedActiveEndpoint } from './support/endpoints.js';
import {
  call,
  createTenant,
  expectRefusal,
  startTestService,
  type Tenant,
  type TestService,
} from './support/harness.js';
import { useStore } from './support/service-lifecycle.js';

const EVENTS = '/sandbox/events';

/**
 * The portal's "Send test event" on one endpoint's page: `endpoint` in the trigger's body sends the event
 * to that endpoint alone, under the fan-out's rules (active, takes the type), with the trigger's budget;
 * an id that is not a live endpoint of the caller's workspace is refused and spends nothing.
 */
describe.each(BACKENDS)('POST /sandbox/events for one endpoint on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let tenant: Tenant;
  const ids: Record<'chosen' | 'other' | 'filtered' | 'paused' | 'removed' | 'foreign', string> = {
    chosen: '',
    other: '',
    filtered: '',
    paused: '',
    removed: '',
    foreign: '',
  };

  beforeAll(async () => {
    service = await startTestService(store, { extra: { sandboxRoutes: true, sandboxEventBudget: true } });
    tenant = await createTenant(service.ctx, { webhooksEnabled: true });
    const stranger = await createTenant(service.ctx, { webhooksEnabled: true });
    await insertIdentity(store.db, {
      id: newId('idn'),
      workspace_id: tenant.workspaceId,
      slug: 'one-endpoint',
      created_at: service.ctx.now(),
    });
    const endpoint = async (workspaceId: string, name: string, events: string[] = []) =>
      (
        await seedActiveEndpoint(
          store.db,
          service.ctx.secretBox,
          workspaceId,
          `https://hooks.example.com/${name}`,
          events,
        )
      ).id;
    ids.chosen = await endpoint(tenant.workspaceId, 'chosen');
    ids.other = await endpoint(tenant.workspaceId, 'other');
    ids.filtered = await endpoint(tenant.workspaceId, 'filtered', ['contact.approved']);
    ids.paused = await endpoint(tenant.workspaceId, 'paused');
    ids.removed = await endpoint(tenant.workspaceId, 'removed');
    ids.foreign = await endpoint(stranger.workspaceId, 'foreign');
    const now = service.ctx.now();
    await setEndpointStatus(store.db, tenant.workspaceId, ids.paused, 'paused', now);
    await removeEndpoint(store.db, tenant.workspaceId, ids.removed, now);
  });
  afterAll(async () => {
    await service?.close();
  });

  const trigger = (body: Record<string, unknown>) =>
    call(service, 'POST', EVENTS, { auth: { key: tenant.key }, body: { type: 'message.received', ...body } });
  /** The endpoints the event's delivery rows are for. */
  const receivers = async (result: Awaited<ReturnType<typeof trigger>>) => {
    expect(result.status).toBe(201);
    const { event } = result.body as { event: { id: string } };
    const rows = await store.db.query<{ endpoint_id: string }>(
      'SELECT endpoint_id FROM webhook_deliveries WHERE event_id = $1',
      [event.id],
    );
    return rows.map((row) => row.endpoint_id).sort();
  };

  it('sends to that endpoint only, and to every one that takes it without', async () => {
    expect(await receivers(await trigger({ endpoint: ids.chosen }))).toEqual([ids.chosen]);
    expect(await receivers(await trigger({}))).toEqual([ids.chosen, ids.other].sort());
  });

  it('keeps the fan-out’s rules: a paused endpoint, or one whose filter leaves the type out, gets nothing', async () => {
    expect(await receivers(await trigger({ endpoint: ids.paused }))).toEqual([]);
    expect(await receivers(await trigger({ endpoint: ids.filtered }))).toEqual([]);
    expect(await receivers(await trigger({ endpoint: ids.filtered, type: 'contact.approved' }))).toEqual([
      ids.filtered,
    ]);
  });

  it('refuses a removed, unknown or other workspace’s endpoint, and such a refusal spends no budget', async () => {
    for (const endpoint of [ids.removed, ids.foreign, 'whk_0000000000000000']) {
      for (let i = 0; i < 4; i++) {
        const refused = await trigger({ endpoint });
        expectRefusal(refused, 404, 'not_found');
        expect((refused.body as { error: { message: string } }).error.message).toBe(
          'no such webhook endpoint in this workspace',
        );
      }
    }
    expectRefusal(await trigger({ endpoint: 42 }), 400, 'invalid_request');
    // Five triggers above spent five of the budget; the refusals none: the rest still pass, then 429.
    for (let i = 5; i < TEST_EVENTS.capacity; i++)
      expect((await trigger({ endpoint: ids.chosen })).status).toBe(201);
    expectRefusal(await trigger({ endpoint: ids.chosen }), 429, 'rate_limited');
    const [foreign] = await store.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1',
      [ids.foreign],
    );
    expect(foreign!.n).toBe(0);
  });
});
