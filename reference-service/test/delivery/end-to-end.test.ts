import { EVENT_TYPES } from '@svc-kit/webhooks';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import {
  createDeliveryTenant,
  createEndpoint,
  type DeliveringService,
  deliveries,
  eventually,
  trigger,
  useDeliveringService,
} from './support.js';

describe.each(BACKENDS)('webhook delivery end to end on $name', (backend) => {
  let service: DeliveringService;
  const receiver = useDeliveringService(backend, (_store, running) => {
    service = running;
  });

  it('delivers every catalogued event once to Express and Fastify receivers that verify it', async () => {
    const tenant = await createDeliveryTenant(service);
    const ex = await receiver('express');
    const fa = await receiver('fastify');
    const one = await createEndpoint(service, tenant, ex.url);
    const two = await createEndpoint(service, tenant, fa.url);
    ex.setSecret(one.secret);
    fa.setSecret(two.secret);

    const events = [];
    for (const type of EVENT_TYPES) events.push(await trigger(service, tenant, type, tenant.slug));
    for (const [endpoint, target] of [
      [one, ex],
      [two, fa],
    ] as const) {
      await eventually(
        () => target.received.length,
        (n) => n >= EVENT_TYPES.length,
      );
      expect(target.refused).toBe(0);
      expect(target.received.map((r) => r.eventId).sort()).toEqual(events.map((e) => e.id).sort());
      expect(new Set(target.received.map((r) => r.deliveryId)).size).toBe(EVENT_TYPES.length);
      for (const got of target.received) {
        expect(got.event.identity).toBe(tenant.slug);
        const sent = events.find((e) => e.id === got.eventId)!;
        expect(got.event.created_at).toBe(sent.created_at);
      }
      const log = await eventually(
        () => deliveries(service, tenant, endpoint.id),
        (rows) => rows.length === EVENT_TYPES.length && rows.every((row) => row.status === 'delivered'),
      );
      for (const row of log) {
        expect(row).toMatchObject({ attempt: 1, http_status: 200, next_attempt_at: null });
        expect(row.latency_ms).toBeGreaterThanOrEqual(0);
        expect(Buffer.byteLength(row.response_excerpt ?? '')).toBeLessThanOrEqual(500);
        // The delivery id the receiver saw is the log row's id.
        expect(target.received.some((r) => r.deliveryId === row.id && r.eventId === row.event_id)).toBe(true);
      }
    }
  });
});
