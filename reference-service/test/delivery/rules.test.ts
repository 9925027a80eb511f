import { readFileSync } from 'node:fs';
import { FAILURES_BEFORE_PAUSE, NOT_SENT_PAUSED, operations } from '@svc-kit/contract';
import { HEADER_NAMES } from '@svc-kit/webhooks';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders } from '../../src/delivery/signing.js';
import type { Queryable } from '../../src/store/db.js';
import type { OpenedStore } from '../../src/store/open.js';
import { insertEvent } from '../../src/store/queries/events.js';
import { setWorkspaceFlag } from '../../src/store/queries/workspaces.js';
import { BACKENDS } from '../support/backends.js';
import { call } from '../support/harness.js';
import {
  createDeliveryTenant,
  createEndpoint,
  type DeliveringService,
  deliveries,
  eventually,
  trigger,
  useDeliveringService,
  WEBHOOKS,
} from './support.js';

/** Long enough for the worker (polling every 200 ms, woken by NOTIFY) to have acted if it were going to. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 600));

async function eventStored(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM events WHERE id = $1', [id])).length === 1;
}

describe('the signing path the worker uses', () => {
  interface SignatureCase {
    name: string;
    body: { utf8?: string; base64?: string; repeat?: string; times?: number };
    signature_header: string | null;
    signed_with: { timestamp: number; secrets: string[] } | null;
  }
  const file = JSON.parse(
    readFileSync(new URL('../../../test-vectors/signature-cases.json', import.meta.url), 'utf8'),
  ) as { cases: SignatureCase[] };
  // The service signs JSON text it produced itself, so only vectors whose body is text apply.
  const signerCases = file.cases.filter(
    (c) => c.signed_with !== null && c.body.base64 === undefined && c.signature_header !== null,
  );

  it('has signer vectors to check', () => expect(signerCases.length).toBeGreaterThan(5));

  it.each(signerCases.map((c) => [c.name, c] as const))('emits the header of %s byte for byte', (_n, c) => {
    const body = c.body.utf8 ?? (c.body.repeat ?? '').repeat(c.body.times ?? 0);
    const headers = deliveryHeaders({
      deliveryId: 'dlv_x',
      eventId: 'evt_x',
      eventType: 'message.received',
      body,
      secrets: c.signed_with!.secrets,
      timestamp: c.signed_with!.timestamp,
    });
    expect(headers[HEADER_NAMES.signature]).toBe(c.signature_header);
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      [HEADER_NAMES.eventId]: 'evt_x',
      [HEADER_NAMES.eventType]: 'message.received',
      [HEADER_NAMES.delivery]: 'dlv_x',
    });
  });
});

describe.each(BACKENDS)('delivery rules on $name', (backend) => {
  let store: OpenedStore;
  let service: DeliveringService;
  const receiver = useDeliveringService(backend, (opened, running) => {
    store = opened;
    service = running;
  });

  async function endpointRecord(tenant: { key: string }, id: string) {
    const list = operations.listWebhooks.success.schema.parse(
      (await call(service, 'GET', WEBHOOKS, { auth: { key: tenant.key } })).body,
    );
    return list.endpoints.find((endpoint) => endpoint.id === id);
  }

  it('signs with both secrets during a rotation: a receiver holding only the old or only the new verifies', async () => {
    const tenant = await createDeliveryTenant(service);
    const target = await receiver('fastify');
    const endpoint = await createEndpoint(service, tenant, target.url);
    const rotated = await call(service, 'POST', `${WEBHOOKS}/${endpoint.id}/secret`, {
      auth: { key: tenant.key },
    });
    expect(rotated.status).toBe(200);
    const newSecret = (rotated.body as { secret: string }).secret;

    target.setSecret(endpoint.secret);
    const first = await trigger(service, tenant, 'contact.approved');
    await eventually(
      () => target.received.map((r) => r.eventId),
      (ids) => ids.includes(first.id),
    );
    target.setSecret(newSecret);
    const second = await trigger(service, tenant, 'contact.approved');
    await eventually(
      () => target.received.map((r) => r.eventId),
      (ids) => ids.includes(second.id),
    );
    expect(target.refused).toBe(0);
  });

  it('sends only events matching the filter, and nothing from before the endpoint existed', async () => {
    const tenant = await createDeliveryTenant(service);
    const early = await receiver();
    const earlyEndpoint = await createEndpoint(service, tenant, early.url);
    early.setSecret(earlyEndpoint.secret);
    const before = await trigger(service, tenant, 'contact.blocked');
    const late = await receiver();
    const lateEndpoint = await createEndpoint(service, tenant, late.url, ['contact.removed']);
    late.setSecret(lateEndpoint.secret);
    await trigger(service, tenant, 'contact.blocked');
    const matching = await trigger(service, tenant, 'contact.removed');
    await eventually(
      () => early.received.length,
      (n) => n === 3,
    );
    await eventually(
      () => late.received.length,
      (n) => n === 1,
    );
    await settle();
    expect(late.requests).toBe(1);
    expect(late.received[0]?.eventId).toBe(matching.id);
    expect(late.received.map((r) => r.eventId)).not.toContain(before.id);
  });

  it('makes no request and writes no log while webhooks are off; events from then are never sent', async () => {
    const tenant = await createDeliveryTenant(service, { webhooksEnabled: false });
    const target = await receiver();
    const endpoint = await createEndpoint(service, tenant, target.url);
    target.setSecret(endpoint.secret);
    const whileOff = [];
    for (let i = 0; i < 3; i++) whileOff.push(await trigger(service, tenant, 'message.received'));
    await settle();
    expect(target.requests).toBe(0);
    expect(await deliveries(service, tenant, endpoint.id)).toEqual([]);
    // Nor are the events themselves stored: no endpoint took them.
    for (const event of whileOff) expect(await eventStored(store.db, event.id)).toBe(false);

    await setWorkspaceFlag(store.db, tenant.workspaceId, 'webhooks_enabled', true);
    const afterOn = await trigger(service, tenant, 'message.received');
    await eventually(
      () => target.received.length,
      (n) => n === 1,
    );
    await settle();
    expect(target.requests).toBe(1);
    expect(target.received[0]?.eventId).toBe(afterOn.id);
    expect((await deliveries(service, tenant, endpoint.id)).map((d) => d.event_id)).toEqual([afterOn.id]);
    expect(await eventStored(store.db, afterOn.id)).toBe(true);
  });

  it('pauses the endpoint at the 20th consecutive failure, dials nothing more, and resumes', async () => {
    const tenant = await createDeliveryTenant(service);
    // No secret yet: the receiver answers 503 to everything, a failure the service must count.
    const target = await receiver();
    const endpoint = await createEndpoint(service, tenant, target.url);
    for (let i = 0; i < 25; i++) await trigger(service, tenant, 'contact.updated');
    await eventually(
      () => endpointRecord(tenant, endpoint.id),
      (record) => record?.status === 'paused',
    );
    await settle();
    const log = await deliveries(service, tenant, endpoint.id);
    expect(target.requests).toBe(20);
    expect(log.filter((row) => row.http_status === 503)).toHaveLength(20);
    // Events after the pause: no row at all (fanned out after it), or a row settled unsent, with its own
    // status and no answer fields (they are the endpoint's answer, spec 2.3).
    for (const row of log.filter((row) => row.http_status !== 503)) {
      expect(row).toMatchObject({
        status: NOT_SENT_PAUSED,
        http_status: null,
        latency_ms: null,
        response_excerpt: null,
      });
    }
    expect(log.filter((row) => row.http_status === 503).every((row) => row.status === 'failed')).toBe(true);
    expect(await endpointRecord(tenant, endpoint.id)).toMatchObject({
      status: 'paused',
      consecutive_failures: 20,
    });
    // While paused, new events do not reach it.
    await trigger(service, tenant, 'contact.updated');
    await settle();
    expect(target.requests).toBe(20);

    const resumed = await call(service, 'PATCH', `${WEBHOOKS}/${endpoint.id}`, {
      auth: { key: tenant.key },
      body: { status: 'active' },
    });
    expect(resumed.status).toBe(200);
    // Resumed on probation: the run is kept one short of the pause; the delivery that succeeds clears it.
    expect(await endpointRecord(tenant, endpoint.id)).toMatchObject({
      status: 'active',
      consecutive_failures: FAILURES_BEFORE_PAUSE - 1,
    });
    target.setSecret(endpoint.secret);
    const after = await trigger(service, tenant, 'contact.updated');
    await eventually(
      () => target.received.map((r) => r.eventId),
      (ids) => ids.length === 1 && ids[0] === after.id,
    );
    expect(target.requests).toBe(21);
    await eventually(
      () => endpointRecord(tenant, endpoint.id),
      (record) => record?.consecutive_failures === 0,
    );
  });

  it('clears the failure run on a success, and logs a refused connection as a failure', async () => {
    const tenant = await createDeliveryTenant(service);
    const target = await receiver();
    const endpoint = await createEndpoint(service, tenant, target.url);
    await trigger(service, tenant, 'contact.updated');
    await eventually(
      () => endpointRecord(tenant, endpoint.id),
      (record) => record?.consecutive_failures === 1,
    );
    target.setSecret(endpoint.secret);
    await trigger(service, tenant, 'contact.updated');
    await eventually(
      () => endpointRecord(tenant, endpoint.id),
      (record) => record?.consecutive_failures === 0,
    );
    // A receiver that is gone: the connection is refused. The record's answer fields stay empty (there was
    // no answer); the reason is in the service's log.
    await target.close();
    await trigger(service, tenant, 'contact.updated');
    const log = await eventually(
      () => deliveries(service, tenant, endpoint.id),
      (rows) =>
        rows.length === 3 && rows.every((row) => row.status !== 'pending' && row.status !== 'sending'),
    );
    expect(log[0]).toMatchObject({
      status: 'failed',
      http_status: null,
      latency_ms: null,
      response_excerpt: null,
    });
    expect(service.deliveryLogs()).toContain(`"delivery_id":"${log[0]?.id}"`);
    expect(service.deliveryLogs()).toContain('delivery not answered');
  });

  it("keeps a deleted endpoint's log readable", async () => {
    const tenant = await createDeliveryTenant(service);
    const target = await receiver();
    const endpoint = await createEndpoint(service, tenant, target.url);
    target.setSecret(endpoint.secret);
    const event = await trigger(service, tenant, 'integration.created');
    await eventually(
      () => target.received.length,
      (n) => n === 1,
    );
    await eventually(
      () => deliveries(service, tenant, endpoint.id),
      (rows) => rows[0]?.status === 'delivered',
    );
    expect(
      (await call(service, 'DELETE', `${WEBHOOKS}/${endpoint.id}`, { auth: { key: tenant.key } })).status,
    ).toBe(204);
    await trigger(service, tenant, 'integration.created');
    await settle();
    expect(target.requests).toBe(1);
    const log = await deliveries(service, tenant, endpoint.id);
    expect(log.map((row) => [row.event_id, row.status])).toEqual([[event.id, 'delivered']]);
  });

  it('records an event with its outbox rows only when the causing transaction commits', async () => {
    const tenant = await createDeliveryTenant(service);
    const target = await receiver();
    const endpoint = await createEndpoint(service, tenant, target.url);
    target.setSecret(endpoint.secret);
    let rolledBackId = '';
    await expect(
      store.db.transaction(async (tx) => {
        rolledBackId = (
          await insertEvent(tx, {
            workspaceId: tenant.workspaceId,
            identity: tenant.slug,
            type: 'contact.requested',
            data: { contact: `sha256:${'a'.repeat(64)}` },
            createdAt: Date.now(),
          })
        ).id;
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const committed = await store.db.transaction((tx) =>
      insertEvent(tx, {
        workspaceId: tenant.workspaceId,
        identity: tenant.slug,
        type: 'contact.requested',
        data: { contact: `sha256:${'b'.repeat(64)}` },
        createdAt: Date.now(),
      }),
    );
    expect(rolledBackId).toMatch(/^evt_/);
    expect(await eventStored(store.db, rolledBackId)).toBe(false);
    expect(await eventStored(store.db, committed.id)).toBe(true);
    await eventually(
      () => target.received.length,
      (n) => n === 1,
    );
    await settle();
    expect(target.received.map((r) => r.eventId)).toEqual([committed.id]);
    expect((await deliveries(service, tenant, endpoint.id)).map((row) => row.event_id)).toEqual([
      committed.id,
    ]);
  });
});
