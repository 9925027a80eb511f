// The relay's own routes refuse what they must, in the spec's error body, and change nothing when they do.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LISTENERS } from '../../src/features/listen/routes.js';
import { createDeliveryTenant } from '../delivery/support.js';
import { BACKENDS } from '../support/backends.js';
import { call, createTenant, expectRefusal } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { startRelayService } from './support.js';

describe.each(BACKENDS)('relay routes on $name', (backend) => {
  const store = useStore(backend);
  let service: Awaited<ReturnType<typeof startRelayService>>;

  beforeAll(async () => {
    service = await startRelayService(store, { soleInstance: backend.name === 'pglite' });
  });
  afterAll(async () => {
    await service?.close();
  });

  /** Live listeners of the workspace, straight from the database. */
  async function countListeners(_db: unknown, workspaceId: string): Promise<number> {
    const rows = await store.db.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM webhook_endpoints
        WHERE workspace_id = $1 AND listener_seen_at IS NOT NULL AND deleted_at IS NULL`,
      [workspaceId],
    );
    return rows[0]!.count;
  }

  /** Opens a stream and returns its listener id once `ready` arrives; the stream stays open. */
  async function openStream(key: string, query = ''): Promise<{ id: string; token: string; abort(): void }> {
    const controller = new AbortController();
    const response = await fetch(`${service.baseUrl}/relay/v1/listen${query}`, {
      headers: { authorization: `Bearer ${key}` },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    const id = /"listener_id":"(whk_[0-9a-f]+)"/.exec(text)![1]!;
    const token = /"stream_token":"([^"]+)"/.exec(text)![1]!;
    return { id, token, abort: () => controller.abort() };
  }

  it('refuses a key without service:workspace:admin, and no credentials, before opening anything', async () => {
    const tenant = await createTenant(service.ctx, { permissions: ['service:contacts:read'] });
    expectRefusal(
      await call(service, 'GET', '/relay/v1/listen', { auth: { key: tenant.key } }),
      403,
      'forbidden',
    );
    expectRefusal(await call(service, 'GET', '/relay/v1/listen'), 401, 'unauthenticated');
    expectRefusal(
      await call(service, 'GET', '/relay/v1/secret', { auth: { key: tenant.key } }),
      403,
      'forbidden',
    );
    expect(await countListeners(store.db, tenant.workspaceId)).toBe(0);
  });

  it('refuses an unknown event type and an unknown listener to resume', async () => {
    const tenant = await createDeliveryTenant(service);
    const bad = await call(service, 'GET', '/relay/v1/listen?events=message.received,no.such', {
      auth: { key: tenant.key },
    });
    expectRefusal(bad, 400, 'invalid_request');
    const unknown = await call(service, 'GET', '/relay/v1/listen?listener=whk_000', {
      auth: { key: tenant.key },
    });
    expectRefusal(unknown, 404, 'not_found');
    expect(await countListeners(store.db, tenant.workspaceId)).toBe(0);
  });

  it(`allows ${MAX_LISTENERS} listeners per workspace at once`, async () => {
    const tenant = await createDeliveryTenant(service);
    const streams = [];
    try {
      for (let i = 0; i < MAX_LISTENERS; i++) streams.push(await openStream(tenant.key));
      const refused = await call(service, 'GET', '/relay/v1/listen', { auth: { key: tenant.key } });
      expectRefusal(refused, 403, 'forbidden');
      expect(await countListeners(store.db, tenant.workspaceId)).toBe(MAX_LISTENERS);
    } finally {
      for (const stream of streams) stream.abort();
    }
  });

  it('takes a stream its CLI closes as ended, not as a request aborted', async () => {
    const tenant = await createDeliveryTenant(service);
    const listening = await openStream(tenant.key);
    listening.abort();
    for (let waited = 0; service.relay.holds(listening.id) && waited < 5_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(service.relay.holds(listening.id)).toBe(false);
    expect(service.logs()).toContain('/relay/v1/listen');
    expect(service.logs()).not.toContain('request aborted');
  });

  it("refuses answers for another workspace's listener, unknown deliveries and unstorable text", async () => {
    const owner = await createDeliveryTenant(service);
    const other = await createDeliveryTenant(service);
    const stream = await openStream(owner.key);
    try {
      const answer = {
        stream_token: stream.token,
        delivery_id: 'dlv_x',
        status: 200,
        latency_ms: 3,
        excerpt: 'ok',
        failure: null,
      };
      const path = `/relay/v1/listeners/${stream.id}/answers`;
      expectRefusal(
        await call(service, 'POST', path, { auth: { key: other.key }, body: answer }),
        404,
        'not_found',
      );
      expectRefusal(
        await call(service, 'POST', path, { auth: { key: owner.key }, body: answer }),
        404,
        'not_found',
      );
      const nul = { ...answer, excerpt: 'o\u0000k' };
      expectRefusal(
        await call(service, 'POST', path, { auth: { key: owner.key }, body: nul }),
        400,
        'invalid_request',
      );
      const nulPath = await call(service, 'POST', '/relay/v1/listeners/whk_%00/answers', {
        auth: { key: owner.key },
        body: answer,
      });
      expectRefusal(nulPath, 400, 'invalid_request');
      const extra = await call(service, 'POST', path, {
        auth: { key: owner.key },
        body: { ...answer, more: 1 },
      });
      expectRefusal(extra, 400, 'invalid_request');
      expectRefusal(
        await call(service, 'DELETE', `/relay/v1/listeners/${stream.id}`, { auth: { key: other.key } }),
        404,
        'not_found',
      );
      expect(await countListeners(store.db, owner.workspaceId)).toBe(1);
    } finally {
      stream.abort();
    }
  });

  it('keeps one signing secret per workspace across listeners, and a different one per workspace', async () => {
    const first = await createDeliveryTenant(service);
    const second = await createDeliveryTenant(service);
    const read = async (key: string) =>
      ((await call(service, 'GET', '/relay/v1/secret', { auth: { key } })).body as { secret: string }).secret;
    const secret = await read(first.key);
    expect(secret).toMatch(/^whsec_/);
    expect(await read(first.key)).toBe(secret);
    expect(await read(second.key)).not.toBe(secret);
    // Sealed at rest, never stored as is.
    const rows = await store.db.query<{ secret_enc: string }>('SELECT secret_enc FROM listener_secrets');
    expect(rows.some((row) => row.secret_enc.includes(secret))).toBe(false);
  });
});
