import { performance } from 'node:perf_hooks';
import { MAX_WEBHOOK_ENDPOINTS } from '@svc-kit/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDelivery, startDelivery } from '../../src/delivery/start.js';
import { DELIVERIES_PER_WORKSPACE } from '../../src/domain/delivery-limits.js';
import { SANDBOX_WORKSPACE_ID } from '../../src/domain/sandbox-workspace.js';
import { BACKENDS } from '../support/backends.js';
import { startTestService, type Tenant, type TestService } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { startTarpit, type Tarpit, type TarpitArrival } from '../support/tarpit.js';
import { createDeliveryTenant, createEndpoint, eventually, trigger } from './support.js';

const { capacity, perMs } = DELIVERIES_PER_WORKSPACE;
/** Endpoints of a bursting tenant, the most it may have: each event fans out to all, so a few requests make the burst. */
const ENDPOINTS = MAX_WEBHOOK_ENDPOINTS;
/** A burst of a bucket and three seconds of its pace. */
const PACED_EVENTS = Math.ceil((capacity + 3_000 * perMs) / ENDPOINTS);

/** `events` test events of the tenant at once; answers `performance.now()` from just before the first. */
async function burst(service: TestService, tenant: Tenant, events: number): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: events }, () => trigger(service, tenant, 'contact.updated')));
  return started;
}

/**
 * The most arrivals by any moment beyond what a full bucket at `from` lets through by then, counted at each
 * arrival (`performance.now()` times): 0 or less when the arrivals kept the pace.
 */
function mostAheadOfPace(arrivals: readonly TarpitArrival[], from: number): number {
  const times = arrivals.map((arrival) => arrival.at).sort((a, b) => a - b);
  return Math.max(...times.map((at, i) => i + 1 - (capacity + (at - from) * perMs)));
}

describe.each(BACKENDS)('the delivery pace over the service, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let receiver: Tarpit;
  let delivery: RunningDelivery;

  beforeAll(async () => {
    service = await startTestService(store, { allowLocalhostWebhooks: true, extra: { sandboxRoutes: true } });
    receiver = await startTarpit({ holdMs: 0 });
    // No poll to speak of: a row due later goes out because the worker wakes when it falls due.
    delivery = await startDelivery(service.ctx, pino({ level: 'silent' }), { pollIntervalMs: 60_000 });
  });
  afterAll(async () => {
    await delivery?.stop();
    await service?.close();
    await receiver?.close();
  });

  async function tenantWithEndpoints(prefix: string, count: number, workspaceId?: string) {
    const tenant = await createDeliveryTenant(service, workspaceId === undefined ? {} : { workspaceId });
    for (let i = 0; i < count; i++) await createEndpoint(service, tenant, receiver.url(`/${prefix}${i}`));
    return tenant;
  }

  const arrivalsAt = (prefix: string) => receiver.arrivals.filter((a) => a.path.startsWith(`/${prefix}`));

  /** The tenant's rows the fan-out made due later (an attempt's outcome clears the time). */
  async function dueLater(tenant: Tenant): Promise<number> {
    const [row] = await store.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE workspace_id = $1 AND next_attempt_at IS NOT NULL',
      [tenant.workspaceId],
    );
    return row!.n;
  }

  it("spreads a workspace's burst beyond its bucket at its pace, and another tenant's deliveries do not wait behind it", async () => {
    const paced = await tenantWithEndpoints('paced', ENDPOINTS);
    const other = await tenantWithEndpoints('other', 1);
    const rows = PACED_EVENTS * ENDPOINTS;

    const started = await burst(service, paced, PACED_EVENTS);
    // The burst went beyond the bucket: some of its rows are due later.
    expect(await dueLater(paced)).toBeGreaterThan(0);
    // While the burst's rows due later wait, another tenant's events go out.
    const otherEvents = [];
    for (let i = 0; i < 3; i++) otherEvents.push(await trigger(service, other, 'contact.updated'));
    const otherArrivals = await Promise.all(otherEvents.map((event) => receiver.arrivalOf(event.id)));

    await eventually(
      () => arrivalsAt('paced').length,
      (n) => n >= rows,
      20_000,
    );
    const arrivals = arrivalsAt('paced');
    expect(arrivals).toHaveLength(rows);
    expect(new Set(arrivals.map((a) => a.deliveryId)).size).toBe(rows);
    // Never more than a bucket and its pace since the burst began (one delivery's margin for the clocks:
    // the rows' due times are the service's wall clock, the arrivals the monotonic one).
    expect(mostAheadOfPace(arrivals, started)).toBeLessThanOrEqual(1);
    // The other tenant's were not held back by the burst's: each arrived before the burst's last.
    const last = Math.max(...arrivals.map((a) => a.at));
    for (const at of otherArrivals) expect(at).toBeLessThan(last);
  }, 40_000);

  it('does not pace the seeded sandbox workspace', async () => {
    const sandbox = await tenantWithEndpoints('sandbox', ENDPOINTS, SANDBOX_WORKSPACE_ID);
    const events = 2 * PACED_EVENTS;
    const rows = events * ENDPOINTS;

    const started = await burst(service, sandbox, events);
    expect(await dueLater(sandbox)).toBe(0);
    await eventually(
      () => arrivalsAt('sandbox').length,
      (n) => n >= rows,
      20_000,
    );
    const arrivals = arrivalsAt('sandbox');
    expect(arrivals).toHaveLength(rows);
    // Faster than a workspace's pace would let through: at one moment, more than a bucket's worth ahead.
    expect(mostAheadOfPace(arrivals, started)).toBeGreaterThan(1);
  }, 40_000);
});
