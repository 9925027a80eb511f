import { DELIVERY_STATUSES, NOT_SENT_REMOVED } from '@svc-kit/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryTuning, type RunningDelivery, startDelivery } from '../../src/delivery/start.js';
import { BACKENDS } from '../support/backends.js';
import { call, startTestService, type TestService } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { startTarpit, type Tarpit } from '../support/tarpit.js';
import {
  createDeliveryTenant,
  createEndpoint,
  deliveries,
  eventually,
  trigger,
  WEBHOOKS,
} from './support.js';

/** Small numbers, the same rules: two workers (instances) of 8 slots, 4 attempts per workspace, 3 per endpoint. */
const TUNING: DeliveryTuning = {
  concurrency: 8,
  caps: { endpoint: 3, workspace: 4 },
  pollIntervalMs: 100,
  totalTimeoutMs: 3_000,
};
const HOLD_MS = 1_500;

describe.each(BACKENDS)('a tenant flooding a tarpit receiver, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let tarpit: Tarpit;
  let quick: Tarpit;
  const workers: RunningDelivery[] = [];

  beforeAll(async () => {
    service = await startTestService(store, { allowLocalhostWebhooks: true, extra: { sandboxRoutes: true } });
    tarpit = await startTarpit({ holdMs: HOLD_MS, tickMs: 100 });
    quick = await startTarpit({ holdMs: 0 });
    const silent = pino({ level: 'silent' });
    // Two workers on one database, as two instances: the caps are counted by the claim, across both.
    for (let i = 0; i < 2; i++) workers.push(await startDelivery(service.ctx, silent, TUNING));
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await service?.close();
    await tarpit?.close();
    await quick?.close();
  });

  it("holds at most its caps of the slots, leaves the other tenant's deliveries quick, and still sends each once", async () => {
    const flooder = await createDeliveryTenant(service);
    const endpoints = [
      await createEndpoint(service, flooder, tarpit.url('/a')),
      await createEndpoint(service, flooder, tarpit.url('/b')),
    ];
    const quiet = await createDeliveryTenant(service);
    await createEndpoint(service, quiet, quick.url('/quiet'));

    const flood: string[] = [];
    for (let i = 0; i < 6; i++) flood.push((await trigger(service, flooder, 'contact.updated')).id);
    // The flooder holds its workspace's share of the sockets, and more of its rows wait.
    await eventually(
      () => tarpit.open(),
      (n) => n === 4,
    );
    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const event = await trigger(service, quiet, 'contact.updated');
      latencies.push((await quick.arrivalOf(event.id)) - started);
    }
    // Each well under a second, while the flood's rows still wait for the tarpit (1.5 s per round of 4).
    expect(Math.max(...latencies)).toBeLessThan(500);
    expect(tarpit.arrivals.length).toBeLessThan(12);

    await eventually(
      async () => (await Promise.all(endpoints.map((e) => deliveries(service, flooder, e.id)))).flat(),
      (rows) => rows.length === 12 && rows.every((row) => row.status === 'delivered'),
    );
    // Never more than the caps at once, with two workers claiming side by side.
    expect(tarpit.most()).toBe(4);
    expect(Math.max(tarpit.most('/a'), tarpit.most('/b'))).toBeLessThanOrEqual(3);
    // Each of the flood's deliveries went out once.
    expect(tarpit.arrivals).toHaveLength(12);
    expect(new Set(tarpit.arrivals.map((a) => a.deliveryId)).size).toBe(12);
    expect(new Set(tarpit.arrivals.map((a) => a.eventId))).toEqual(new Set(flood));
  }, 30_000);

  it('records a row never dialled because its endpoint was removed with its own status and no answer', async () => {
    const tenant = await createDeliveryTenant(service);
    const endpoint = await createEndpoint(service, tenant, tarpit.url('/removed'));
    // One attempt at a time: an endpoint in a failure run has a cap of one.
    await store.db.query('UPDATE webhook_endpoints SET consecutive_failures = 1 WHERE id = $1', [
      endpoint.id,
    ]);
    for (let i = 0; i < 3; i++) await trigger(service, tenant, 'contact.updated');
    await eventually(
      () => tarpit.open('/removed'),
      (n) => n === 1,
    );
    const removed = await call(service, 'DELETE', `${WEBHOOKS}/${endpoint.id}`, {
      auth: { key: tenant.key },
    });
    expect(removed.status).toBe(204);
    const log = await eventually(
      () => deliveries(service, tenant, endpoint.id),
      (rows) => rows.every((row) => row.status !== 'pending' && row.status !== 'sending'),
    );
    expect(log.map((row) => row.status).sort()).toEqual(['delivered', NOT_SENT_REMOVED, NOT_SENT_REMOVED]);
    for (const row of log.filter((row) => row.status === NOT_SENT_REMOVED)) {
      expect(row).toMatchObject({ http_status: null, latency_ms: null, response_excerpt: null });
    }
    expect(tarpit.arrivals.filter((a) => a.path === '/removed')).toHaveLength(1);
  }, 20_000);

  it("stores exactly the contract's delivery statuses", async () => {
    const [check] = await store.db.query<{ definition: string }>(
      `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'webhook_deliveries_status'`,
    );
    expect([...check!.definition.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]).sort()).toEqual(
      [...DELIVERY_STATUSES].sort(),
    );
  });
});
