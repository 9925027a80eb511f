import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeliveryTuning, type RunningDelivery, startDelivery } from '../../src/delivery/start.js';
import type { OpenedStore } from '../../src/store/open.js';
import { insertEvent } from '../../src/store/queries/events.js';
import { setWorkspaceFlag } from '../../src/store/queries/workspaces.js';
import { BACKENDS } from '../support/backends.js';
import { call, startTestService, type TestService } from '../support/harness.js';
import { createDeliveryTenant, createEndpoint, eventually, WEBHOOKS } from './support.js';

/**
 * A loopback receiver that holds every request until the test answers it, and records how many requests
 * were open when each one arrived (the worker's parallelism towards this endpoint).
 */
async function startHoldingReceiver() {
  const held: { eventId: string; res: ServerResponse }[] = [];
  const arrivals: { eventId: string; openBefore: number }[] = [];
  let open = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const eventId = String(req.headers['x-service-event-id']);
    arrivals.push({ eventId, openBefore: open });
    open++;
    res.on('close', () => open--);
    req.resume();
    held.push({ eventId, res });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    held: () => held.length,
    /** Answers every request held so far. */
    answerAll(status: number) {
      for (const { res } of held.splice(0)) res.writeHead(status).end(status < 300 ? 'ok' : 'no');
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const quiet = pino({ level: 'silent' }, new Writable({ write: (_c, _e, done) => done() }));

describe.each(BACKENDS)('claimed ahead of free slots (prefetch) on $name', (backend) => {
  let store: OpenedStore;
  let service: TestService;
  const running: RunningDelivery[] = [];

  beforeAll(async () => {
    store = await backend.open();
    service = await startTestService(store, { allowLocalhostWebhooks: true });
  });
  afterAll(async () => {
    for (const delivery of running) await delivery.stop();
    await service?.close();
    await store?.close();
  });

  async function deliver(tuning: DeliveryTuning): Promise<RunningDelivery> {
    const delivery = await startDelivery(service.ctx, quiet, { pollIntervalMs: 100, ...tuning });
    running.push(delivery);
    return delivery;
  }

  /** A tenant with one endpoint at `url`, and `n` events committed in one transaction. */
  async function burst(url: string, n: number) {
    const tenant = await createDeliveryTenant(service);
    const endpoint = await createEndpoint(service, tenant, url);
    const events = await store.db.transaction(async (tx) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const event = await insertEvent(tx, {
          workspaceId: tenant.workspaceId,
          identity: tenant.slug,
          type: 'contact.updated',
          data: { contact: `c${i}` },
          createdAt: Date.now(),
        });
        ids.push(event.id);
      }
      return ids;
    });
    const statuses = async () =>
      store.db.query<{ event_id: string; status: string; http_status: number | null }>(
        'SELECT event_id, status, http_status FROM webhook_deliveries WHERE endpoint_id = $1',
        [endpoint.id],
      );
    return { tenant, endpoint, events, statuses };
  }

  it('gives prefetched rows back on stop, never dialled, and a later worker sends each once', async () => {
    const receiver = await startHoldingReceiver();
    try {
      const first = await deliver({ concurrency: 1, prefetch: 4 });
      const { events, statuses } = await burst(receiver.url, 5);
      await eventually(receiver.held, (n) => n === 1);
      // One row on the wire and four claimed behind it: all five are `sending`.
      await eventually(statuses, (rows) => rows.filter((row) => row.status === 'sending').length === 5);

      const stopping = first.stop();
      await eventually(statuses, (rows) => rows.filter((row) => row.status === 'pending').length === 4);
      receiver.answerAll(200);
      await stopping;
      expect((await statuses()).map((row) => row.status).sort()).toEqual([
        'delivered',
        'pending',
        'pending',
        'pending',
        'pending',
      ]);
      expect(receiver.arrivals).toHaveLength(1);

      await deliver({ concurrency: 1, prefetch: 4 });
      for (let answered = 1; answered < 5; answered++) {
        await eventually(receiver.held, (n) => n === 1);
        receiver.answerAll(200);
      }
      await eventually(statuses, (rows) => rows.every((row) => row.status === 'delivered'));
      expect(receiver.arrivals.map((arrival) => arrival.eventId).sort()).toEqual([...events].sort());
    } finally {
      receiver.answerAll(200);
      await receiver.close();
    }
  });

  it.each([
    ['paused', 'failed'],
    ['switched off', undefined],
  ] as const)(
    'never dials the rows it claimed ahead of an endpoint that gets %s',
    async (change, settledAs) => {
      for (const delivery of running.splice(0)) await delivery.stop();
      const receiver = await startHoldingReceiver();
      const worker = await deliver({ concurrency: 1, prefetch: 4 });
      try {
        const { tenant, endpoint, statuses } = await burst(receiver.url, 5);
        await eventually(receiver.held, (n) => n === 1);
        await eventually(statuses, (rows) => rows.filter((row) => row.status === 'sending').length === 5);
        if (change === 'paused') {
          const paused = await call(service, 'PATCH', `${WEBHOOKS}/${endpoint.id}`, {
            auth: { key: tenant.key },
            body: { status: 'paused' },
          });
          expect(paused.status).toBe(200);
        } else {
          await setWorkspaceFlag(store.db, tenant.workspaceId, 'webhooks_enabled', false);
        }
        // The four rows behind the one on the wire are called back and settled by the next claim: failed
        // unsent for a paused endpoint, deleted while webhooks are off.
        await eventually(
          statuses,
          (rows) =>
            rows.length === (settledAs ? 5 : 1) &&
            rows.filter((row) => row.status === 'sending').length === 1,
        );
        receiver.answerAll(200);
        await eventually(statuses, (rows) => rows.some((row) => row.status === 'delivered'));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(receiver.arrivals).toHaveLength(1);
        const rows = await statuses();
        expect(
          rows.filter((row) => row.status !== 'delivered').every((row) => row.status === settledAs),
        ).toBe(true);
      } finally {
        receiver.answerAll(200);
        await worker.stop();
        await receiver.close();
      }
    },
  );

  it('gives back a row that waited half its lease for a slot, unsent, and claims it again', async () => {
    // Alone: another worker would dial these rows on its own terms, and this one's short lease would make
    // its sweeper abandon the next test's rows.
    for (const delivery of running.splice(0)) await delivery.stop();
    const receiver = await startHoldingReceiver();
    const worker = await deliver({ concurrency: 1, prefetch: 4, leaseMs: 4_000 });
    try {
      const { events, statuses } = await burst(receiver.url, 5);
      await eventually(receiver.held, (n) => n === 1);
      // The four rows claimed behind the held one are now past half their lease (the held one is within it).
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const answeredAt = Date.now();
      receiver.answerAll(200);
      for (let answered = 1; answered < 5; answered++) {
        await eventually(receiver.held, (n) => n === 1);
        receiver.answerAll(200);
      }
      await eventually(statuses, (rows) => rows.every((row) => row.status === 'delivered'));
      expect(receiver.arrivals.map((arrival) => arrival.eventId).sort()).toEqual([...events].sort());
      // Dialled only after a claim made once the first answer had freed the slot: claimed again.
      const claimed = await store.db.query<{ claimed_at: number }>(
        'SELECT claimed_at FROM webhook_deliveries WHERE event_id = ANY ($1) ORDER BY claimed_at',
        [events],
      );
      expect(claimed.map((row) => row.claimed_at >= answeredAt)).toEqual([false, true, true, true, true]);
    } finally {
      receiver.answerAll(200);
      await worker.stop();
      await receiver.close();
    }
  });

  it('gives back the rows of an endpoint that starts failing, which then gets one attempt at a time', async () => {
    const receiver = await startHoldingReceiver();
    try {
      await deliver({ concurrency: 4, prefetch: 4 });
      const { events, statuses } = await burst(receiver.url, 8);
      // Healthy until now: four attempts at once, four more claimed behind them.
      await eventually(receiver.held, (n) => n === 4);
      receiver.answerAll(500);
      for (let answered = 4; answered < 8; answered++) {
        await eventually(receiver.held, (n) => n === 1);
        // Held a moment, so that a second attempt in parallel would arrive meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 50));
        receiver.answerAll(500);
      }
      await eventually(statuses, (rows) => rows.every((row) => row.status === 'failed'));
      const later = receiver.arrivals.slice(4);
      expect(later.map((arrival) => arrival.openBefore)).toEqual([0, 0, 0, 0]);
      expect(receiver.arrivals.map((arrival) => arrival.eventId).sort()).toEqual([...events].sort());
      expect((await statuses()).every((row) => row.http_status === 500)).toBe(true);
    } finally {
      receiver.answerAll(500);
      await receiver.close();
    }
  });
});
