import { DELIVERY_FILTER_WINDOW } from '@svc-kit/contract';
import { HEADER_NAMES } from '@svc-kit/webhooks';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { ACTIVITY_READS } from '../../src/features/webhooks/activity.js';
import { insertDelivery, seedActiveEndpoint } from '../support/endpoints.js';
import { call, createTenant, expectRefusal } from '../support/harness.js';
import { serviceForTests } from '../support/service-lifecycle.js';

interface Sent {
  delivery: { id: string; event_id: string; status: string };
  url: string;
  no_answer_reason: string | null;
  request: { method: string; headers: Record<string, string>; body: string | null };
}
interface Chart {
  buckets: { start: number; attempts: Record<string, number>; latency_p50_ms: number | null }[];
  bucket_ms: number;
  truncated: boolean;
}

// The portal's two reads beyond the contract: what an attempt sent, and an endpoint's activity chart.
describe('the webhook pages’ reads: an attempt’s request, the activity chart, the log’s filters', () => {
  const running = serviceForTests();

  async function endpointWithLog() {
    const { ctx } = running.service;
    const tenant = await createTenant(ctx);
    const endpoint = await seedActiveEndpoint(
      ctx.db,
      ctx.secretBox,
      tenant.workspaceId,
      'https://hooks.example.com/in',
    );
    const now = Date.now();
    const events = ['a', 'b', 'c'].map(() => newId('evt'));
    const rows = [
      { event: events[0]!, status: 'delivered', latency: 40, http: 200, at: now - 30_000 },
      { event: events[1]!, status: 'delivered', latency: 60, http: 200, at: now - 20_000 },
      { event: events[2]!, status: 'failed', latency: null, http: null, at: now - 5 * 60_000 },
    ];
    for (const row of rows) {
      const body = JSON.stringify({
        id: row.event,
        type: 'message.received',
        created_at: row.at,
        identity: 'me',
        data: {},
      });
      await ctx.db.query(
        `INSERT INTO events (id, workspace_id, identity, type, body, created_at) VALUES ($1, $2, 'me', 'message.received', $3, $4)`,
        [row.event, tenant.workspaceId, body, row.at],
      );
      await insertDelivery(ctx.db, {
        workspace_id: tenant.workspaceId,
        endpoint_id: endpoint.id,
        event_id: row.event,
        event_type: 'message.received',
        attempt: 1,
        status: row.status,
        http_status: row.http,
        latency_ms: row.latency,
        response_excerpt: row.http === null ? null : 'ok',
        next_attempt_at: null,
        created_at: row.at,
      });
    }
    return { tenant, endpoint, events };
  }

  it('shows what an attempt sent: the stored body and the headers, never a signature or a secret', async () => {
    const { tenant, endpoint, events } = await endpointWithLog();
    const log = await call(
      running.service,
      'GET',
      `/v1/workspace/webhooks/${endpoint.id}/deliveries?limit=5`,
      {
        auth: { cookie: tenant.plainSession },
      },
    );
    const first = (log.body as { deliveries: { id: string; event_id: string }[] }).deliveries[0]!;
    const answer = await call(
      running.service,
      'GET',
      `/v1/workspace/webhooks/${endpoint.id}/deliveries/${first.id}/request`,
      { auth: { cookie: tenant.plainSession } },
    );
    expect(answer.status).toBe(200);
    const sent = answer.body as Sent;
    expect(sent.url).toBe('https://hooks.example.com/in');
    expect(sent.delivery).toMatchObject({ id: first.id, event_id: events[1], status: 'delivered' });
    // Beside the record, not in it: an answered attempt has no reason.
    expect(sent.no_answer_reason).toBeNull();
    expect(Object.keys(sent.delivery)).not.toContain('no_answer_reason');
    expect(JSON.parse(sent.request.body!)).toMatchObject({ id: events[1], type: 'message.received' });
    expect(sent.request.headers).toMatchObject({
      'content-type': 'application/json',
      [HEADER_NAMES.eventId]: events[1],
      [HEADER_NAMES.eventType]: 'message.received',
      [HEADER_NAMES.delivery]: first.id,
      [HEADER_NAMES.signature]: 't=<unix seconds>,v1=<elided>',
    });
    expect(answer.text).not.toMatch(/whsec_|v1=[0-9a-f]{16}/);

    const stranger = await createTenant(running.service.ctx);
    const path = `/v1/workspace/webhooks/${endpoint.id}/deliveries/${first.id}/request`;
    expectRefusal(
      await call(running.service, 'GET', path, { auth: { key: stranger.key } }),
      404,
      'not_found',
    );
    expectRefusal(await call(running.service, 'GET', path), 401, 'unauthenticated');
  });

  it('counts attempts per minute and status over the last hour, with latency; refuses an unknown window', async () => {
    const { tenant, endpoint } = await endpointWithLog();
    const path = `/v1/workspace/webhooks/${endpoint.id}/activity`;
    const answer = await call(running.service, 'GET', path, { auth: { key: tenant.key } });
    expect(answer.status).toBe(200);
    const chart = answer.body as Chart;
    expect(chart.buckets).toHaveLength(60);
    expect(chart.bucket_ms).toBe(60_000);
    expect(chart.truncated).toBe(false);
    const totals: Record<string, number> = {};
    for (const bucket of chart.buckets)
      for (const [status, n] of Object.entries(bucket.attempts)) totals[status] = (totals[status] ?? 0) + n;
    expect(totals).toEqual({ delivered: 2, failed: 1 });
    const last = chart.buckets.at(-1)!;
    expect(last.attempts).toEqual({ delivered: 2 });
    expect(last.latency_p50_ms).toBe(50);
    const day = await call(running.service, 'GET', `${path}?window=24h`, { auth: { key: tenant.key } });
    expect((day.body as Chart).buckets).toHaveLength(48);
    expectRefusal(
      await call(running.service, 'GET', `${path}?window=7d`, { auth: { key: tenant.key } }),
      400,
      'invalid_request',
    );
    const stranger = await createTenant(running.service.ctx);
    expectRefusal(
      await call(running.service, 'GET', path, { auth: { key: stranger.key } }),
      404,
      'not_found',
    );
  });
  it('limits each workspace’s chart reads, which read up to the filter window each, and no other’s', async () => {
    const { tenant, endpoint } = await endpointWithLog();
    const path = `/v1/workspace/webhooks/${endpoint.id}/activity`;
    for (let i = 0; i < ACTIVITY_READS.capacity; i++) {
      expect((await call(running.service, 'GET', path, { auth: { key: tenant.key } })).status).toBe(200);
    }
    const refused = await call(running.service, 'GET', path, { auth: { key: tenant.key } });
    expectRefusal(refused, 429, 'rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const other = await endpointWithLog();
    const answer = await call(
      running.service,
      'GET',
      `/v1/workspace/webhooks/${other.endpoint.id}/activity`,
      {
        auth: { key: other.tenant.key },
      },
    );
    expect(answer.status).toBe(200);
  });

  it('filters by status over the newest attempts only; an event id finds its attempt at any age', async () => {
    const { ctx } = running.service;
    const tenant = await createTenant(ctx);
    const endpoint = await seedActiveEndpoint(
      ctx.db,
      ctx.secretBox,
      tenant.workspaceId,
      'https://hooks.example.com/long',
    );
    // The oldest attempt failed; the window's worth after it were delivered.
    const start = Date.now() - 3_600_000;
    await ctx.db.query(
      `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status,
         http_status, latency_ms, response_excerpt, next_attempt_at, created_at)
       SELECT webhook_delivery_id('evt_long_' || n, $2), $1, $2, 'evt_long_' || n, 'message.received', 1,
              CASE WHEN n = 0 THEN 'failed' ELSE 'delivered' END, NULL, NULL, NULL, NULL, $3::bigint + n
         FROM generate_series(0, $4::int) AS n`,
      [tenant.workspaceId, endpoint.id, start, DELIVERY_FILTER_WINDOW],
    );
    const read = async (query: string) =>
      (
        (
          await call(
            running.service,
            'GET',
            `/v1/workspace/webhooks/${endpoint.id}/deliveries?limit=5&${query}`,
            {
              auth: { key: tenant.key },
            },
          )
        ).body as { deliveries: { event_id: string; status: string }[] }
      ).deliveries;
    expect(await read('status=failed')).toEqual([]);
    expect(await read('status=delivered')).toHaveLength(5);
    expect(await read('event_id=evt_long_0')).toMatchObject([{ event_id: 'evt_long_0', status: 'failed' }]);
    expect(await read('event_id=evt_long_0&status=failed')).toHaveLength(1);
  });
});
