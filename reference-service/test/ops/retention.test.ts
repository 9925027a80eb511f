import { newWebhookEndpoint } from '@svc-kit/contract';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { DEFAULT_RETENTION, startRetention } from '../../src/ops/retention.js';
import { insertEndpoint, newEndpointRow } from '../../src/store/queries/webhook-endpoints.js';
import { BACKENDS } from '../support/backends.js';
import { call, createTenant, startTestService, type Tenant, type TestService } from '../support/harness.js';
import { addIdentity } from '../support/identity.js';
import { lineSink } from '../support/line-sink.js';
import { useStore } from '../support/service-lifecycle.js';

const DAY = 24 * 60 * 60 * 1000;

describe.each(BACKENDS)('retention on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let tenant: Tenant;
  /** The service's clock: real time moved by `offset`, so that data can be written as if long ago. */
  let offset = 0;
  const now = () => Date.now() + offset;

  beforeAll(async () => {
    service = await startTestService(store, {
      now,
      extra: { sandboxRoutes: true, sandboxEventBudget: false },
    });
    tenant = await createTenant(service.ctx, { webhooksEnabled: true });
    await addIdentity(store.db, tenant.workspaceId, 'keeper');
  });
  afterAll(async () => {
    await service?.close();
  });

  const count = async (sql: string, params: unknown[] = []) =>
    (await store.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params))[0]!.n;

  const endpoint = async () => {
    const id = newId('whk');
    const at = now();
    await insertEndpoint(
      store.db,
      newEndpointRow(
        tenant.workspaceId,
        newWebhookEndpoint({ id, url: `https://hooks.example.com/${id}`, events: [] }, at),
        service.ctx.secretBox.seal('whsec_test', id),
      ),
    );
    return id;
  };
  const emit = async (times: number) => {
    for (let i = 0; i < times; i++) {
      const sent = await call(service, 'POST', '/sandbox/events', {
        auth: { key: tenant.key },
        body: { type: 'integration.exposure_updated', data: { integration: 'tools', version: i + 1 } },
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    }
  };
  const remove = async (id: string) =>
    expect(
      (await call(service, 'DELETE', `/v1/workspace/webhooks/${id}`, { auth: { key: tenant.key } })).status,
    ).toBe(204);
  const log = (id: string) =>
    call(service, 'GET', `/v1/workspace/webhooks/${id}/deliveries?limit=100`, { auth: { key: tenant.key } });

  it('removes what is past its window in small batches, and keeps a removed endpoint’s log readable while any is kept', async () => {
    offset = -50 * DAY;
    const live = await endpoint();
    const goneLongAgo = await endpoint();
    const goneLately = await endpoint();
    offset = -40 * DAY;
    await emit(30);
    await remove(goneLongAgo);
    offset = -2 * DAY;
    await emit(2);
    offset = -1 * DAY;
    await remove(goneLately);
    offset = 0;
    // Rows of the other kinds, made to look old beside fresh ones.
    const t = now();
    await store.db.query(
      `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response_status, response_body, created_at)
       VALUES ($1, 'old', 'f', 200, '{}', $2), ($1, 'fresh', 'f', 200, '{}', $3)`,
      [tenant.workspaceId, t - DAY - 1, t - DAY + 60_000],
    );
    await store.db.query(
      `INSERT INTO sessions (id, member_id, token_hash, created_at, expires_at)
       VALUES ('ses_expired', $1, 'expired-hash', $2, $3)`,
      [tenant.memberId, t - 2 * DAY, t - DAY],
    );
    await store.db.query(
      `INSERT INTO outbound_budgets (bucket, tokens, updated_at) VALUES ('test:idle', 1, $1), ('test:busy', 1, $2)`,
      [t - 8 * DAY, t - 60_000],
    );
    await store.db.query(
      `INSERT INTO sign_in_known_addresses (account, address, last_seen_at) VALUES ('a', 'old', $1), ('a', 'new', $2)`,
      [t - 181 * DAY, t - DAY],
    );
    const sessionsBefore = await count('sessions');
    expect(await count('webhook_deliveries')).toBe(30 * 3 + 2 * 2);
    expect(await count('events')).toBe(32);

    const { sink } = lineSink();
    // One page per statement: the pass goes through each table in many statements.
    const retention = startRetention(store.db, {
      now,
      settings: { ...DEFAULT_RETENTION, everyMs: 3_600_000, pagesPerStatement: 1 },
      log: pino({ level: 'silent' }, sink),
    });
    try {
      const removed = await retention.runOnce();
      expect(removed).toEqual({
        webhook_deliveries: 90,
        events: 30,
        webhook_endpoints: 1,
        idempotency_keys: 1,
        sessions: 1,
        outbound_budgets: 1,
        sign_in_known_addresses: 1,
      });
      // Nothing is left to remove.
      expect(await retention.runOnce()).toEqual({});
    } finally {
      await retention.close();
    }

    // What is within its window answers as before.
    const liveLog = await log(live);
    expect(liveLog.status).toBe(200);
    expect((liveLog.body as { deliveries: unknown[] }).deliveries).toHaveLength(2);
    const lateLog = await log(goneLately);
    expect(lateLog.status).toBe(200);
    expect((lateLog.body as { deliveries: unknown[] }).deliveries).toHaveLength(2);
    // The endpoint removed long ago had only an old log: with it gone, so is the endpoint.
    expect((await log(goneLongAgo)).status).toBe(404);
    expect(await count('events')).toBe(2);
    expect(await count("idempotency_keys WHERE key = 'fresh'")).toBe(1);
    expect(await count('sessions')).toBe(sessionsBefore - 1);
    expect(await count("outbound_budgets WHERE bucket = 'test:busy'")).toBe(1);
    expect(await count("sign_in_known_addresses WHERE address = 'new'")).toBe(1);
    // The tenant's live sessions still work.
    const me = await call(service, 'GET', '/v1/workspace/webhooks', {
      auth: { cookie: tenant.plainSession },
    });
    expect(me.status).toBe(200);
  }, 120_000);
});
