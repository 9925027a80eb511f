import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { EVENT_READS } from '../../src/features/webhooks/portal-routes.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import { PRUNABLE, pagesOf, prunePages } from '../../src/store/queries/retention.js';
import { BACKENDS } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import {
  type CallResult,
  call,
  createTenant,
  expectRefusal,
  startTestService,
  type Tenant,
  type TestService,
} from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';

interface EventPage {
  event: { id: string; type: string; created_at: number; body: string };
  attempts: {
    delivery: { id: string; endpoint_id: string; event_id: string; status: string };
    endpoint: { id: string; url: string; removed: boolean };
  }[];
}

const eventPath = (id: string) => `/v1/workspace/events/${id}`;

// The portal's event page reads one event and every endpoint's attempt of it, on both backends.
describe.each(BACKENDS)('GET /v1/workspace/events/{event} on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let owner: Tenant;
  let stranger: Tenant;
  let endpoints: { id: string }[];
  let eventId: string;

  beforeAll(async () => {
    service = await startTestService(store, { extra: { sandboxRoutes: true } });
    owner = await createTenant(service.ctx, { webhooksEnabled: true });
    stranger = await createTenant(service.ctx, { webhooksEnabled: true });
    await insertIdentity(store.db, {
      id: newId('idn'),
      workspace_id: owner.workspaceId,
      slug: `events-${owner.workspaceId.slice(-8)}`,
      created_at: service.ctx.now(),
    });
    endpoints = [];
    for (const url of ['https://hooks.example.com/one', 'https://hooks.example.com/two']) {
      endpoints.push(await seedActiveEndpoint(store.db, service.ctx.secretBox, owner.workspaceId, url));
    }
    // The real fan-out: the sandbox's trigger writes the event and a row per endpoint in one statement.
    const sent = await call(service, 'POST', '/sandbox/events', {
      auth: { cookie: owner.plainSession },
      body: { type: 'message.received' },
    });
    expect(sent.status).toBe(201);
    eventId = (sent.body as { event: { id: string } }).event.id;
  });
  afterAll(async () => {
    await service?.close();
  });

  const read = (id: string, tenant: Tenant = owner) =>
    call(service, 'GET', eventPath(id), { auth: { cookie: tenant.plainSession } });

  it('answers the event as stored and both endpoints’ attempts, a removed endpoint’s too', async () => {
    const removed = await call(service, 'DELETE', `/v1/workspace/webhooks/${endpoints[1]!.id}`, {
      auth: { key: owner.key },
    });
    expect(removed.status).toBe(204);
    const answer = await read(eventId);
    expect(answer.status).toBe(200);
    const page = answer.body as EventPage;
    const [stored] = await store.db.query<{ body: string; created_at: number }>(
      'SELECT body, created_at FROM events WHERE id = $1',
      [eventId],
    );
    expect(page.event).toEqual({
      id: eventId,
      type: 'message.received',
      created_at: stored!.created_at,
      body: stored!.body,
    });
    expect(JSON.parse(page.event.body)).toMatchObject({ id: eventId, type: 'message.received' });
    expect(page.attempts.map((a) => [a.endpoint, a.delivery.endpoint_id, a.delivery.event_id])).toEqual([
      [
        { id: endpoints[0]!.id, url: 'https://hooks.example.com/one', removed: false },
        endpoints[0]!.id,
        eventId,
      ],
      [
        { id: endpoints[1]!.id, url: 'https://hooks.example.com/two', removed: true },
        endpoints[1]!.id,
        eventId,
      ],
    ]);
    // Each record is the one the endpoint's own log shows for the event.
    for (const attempt of page.attempts) {
      const log = await call(
        service,
        'GET',
        `/v1/workspace/webhooks/${attempt.endpoint.id}/deliveries?limit=1&event_id=${eventId}`,
        { auth: { key: owner.key } },
      );
      expect((log.body as { deliveries: unknown[] }).deliveries).toEqual([attempt.delivery]);
    }
  });

  it('answers another workspace’s event exactly as an unknown one: 404 with the error body', async () => {
    const theirs = await read(eventId, stranger);
    const unknown = await read(`evt_${'0'.repeat(24)}`, stranger);
    expectRefusal(theirs, 404, 'not_found');
    expectRefusal(unknown, 404, 'not_found');
    expect(withoutRequestId(theirs)).toEqual(withoutRequestId(unknown));
    expect(theirs.text).not.toContain(eventId);
    // With a key of the other workspace too: the route reads the caller's workspace, however it signs in.
    expectRefusal(
      await call(service, 'GET', eventPath(eventId), { auth: { key: stranger.key } }),
      404,
      'not_found',
    );
  });

  it('refuses a malformed id as 400 invalid_request, and a caller without a session as 401', async () => {
    for (const id of ['nope', `evt_${'A'.repeat(24)}`, `evt_${'a'.repeat(25)}`, `dlv_${'a'.repeat(24)}`]) {
      expectRefusal(await read(id), 400, 'invalid_request');
    }
    expectRefusal(await call(service, 'GET', eventPath(eventId)), 401, 'unauthenticated');
  });

  it('limits each workspace’s event page reads, which walk its removed endpoints too, and no other’s', async () => {
    const reader = await createTenant(service.ctx, { webhooksEnabled: true });
    const unknown = eventPath(`evt_${'f'.repeat(24)}`);
    const readAs = (tenant: Tenant) => call(service, 'GET', unknown, { auth: { key: tenant.key } });
    for (let i = 0; i < EVENT_READS.capacity; i++) expectRefusal(await readAs(reader), 404, 'not_found');
    const refused = await readAs(reader);
    expectRefusal(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expectRefusal(await readAs(stranger), 404, 'not_found');
  });

  it('shows the event with no attempts once retention removed them, and 404 once it removed the event', async () => {
    const prune = async (kind: (typeof PRUNABLE)[number]) =>
      prunePages(store.db, kind, 0, await pagesOf(store.db, kind.table), Date.now() + 1);
    const [deliveries, events] = [PRUNABLE[0]!, PRUNABLE[1]!];
    expect([deliveries.table, events.table]).toEqual(['webhook_deliveries', 'events']);
    await prune(deliveries);
    const kept = await read(eventId);
    expect(kept.status).toBe(200);
    expect((kept.body as EventPage).attempts).toEqual([]);
    await prune(events);
    const gone = await read(eventId);
    expectRefusal(gone, 404, 'not_found');
    expect((gone.body as { error: { message: string } }).error.message).toMatch(/retention/);
  });
});

function withoutRequestId(result: CallResult) {
  const { error } = result.body as { error: Record<string, unknown> };
  const { request_id: _, ...rest } = error;
  return { status: result.status, error: rest };
}
