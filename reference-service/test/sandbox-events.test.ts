import { createHash } from 'node:crypto';
import { PERMISSIONS } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/domain/ids.js';
import { insertIdentity } from '../src/store/queries/identities.js';
import { setWorkspaceFlag } from '../src/store/queries/workspaces.js';
import { BACKENDS } from './support/backends.js';
import { type StoredEvent, seedActiveEndpoint, takeEvents } from './support/endpoints.js';
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
const contact = `sha256:${createHash('sha256').update('someone').digest('hex')}`;

describe.each(BACKENDS)('POST /sandbox/events on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  let owner: Tenant;
  let reader: Tenant;
  const taken = new Map<string, () => Promise<StoredEvent[]>>();

  beforeAll(async () => {
    service = await startTestService(store, { extra: { sandboxRoutes: true } });
    owner = await createTenant(service.ctx);
    // The key: a member of the same kind of workspace whose key only reads contacts.
    reader = await createTenant(service.ctx, { scopes: ['service:contacts:read'] });
    for (const tenant of [owner, reader]) {
      const id = newId('idn');
      await insertIdentity(store.db, {
        id,
        workspace_id: tenant.workspaceId,
        slug: `events-${id.slice(-8)}`,
        created_at: service.ctx.now(),
      });
      taken.set(tenant.workspaceId, await takeEvents(store.db, service.ctx.secretBox, tenant.workspaceId));
    }
  });
  afterAll(async () => {
    await service?.close();
  });

  const stored = async (workspaceId: string) =>
    (await taken.get(workspaceId)!()).map((row) => JSON.parse(row.body) as { type: string; data: unknown });

  it('needs service:workspace:admin, from a key or a member', async () => {
    const body = { type: 'contact.requested' };
    expectRefusal(await call(service, 'POST', EVENTS, { auth: { key: reader.key }, body }), 403, 'forbidden');
    const memberWithoutAdmin = await createTenant(service.ctx, {
      permissions: PERMISSIONS.filter((permission) => permission !== 'service:workspace:admin'),
    });
    expectRefusal(
      await call(service, 'POST', EVENTS, { auth: { key: memberWithoutAdmin.key }, body }),
      403,
      'forbidden',
    );
    expect(await stored(reader.workspaceId)).toEqual([]);
    expect((await call(service, 'POST', EVENTS, { auth: { key: owner.key }, body })).status).toBe(201);
  });

  it('takes exactly the catalogue’s data: no extra, missing or mistyped field', async () => {
    const before = await stored(owner.workspaceId);
    for (const data of [
      { contact, message_body: 'hello, this is private' },
      { contact, card: 'svc-card.v1.x.y' },
      {},
      { contact: 'not-a-digest' },
      { contact: 42 },
    ]) {
      const refused = await call(service, 'POST', EVENTS, {
        auth: { key: owner.key },
        body: { type: 'contact.requested', data },
      });
      expectRefusal(refused, 400, 'invalid_request');
    }
    expect(await stored(owner.workspaceId)).toEqual(before);

    const accepted = await call(service, 'POST', EVENTS, {
      auth: { key: owner.key },
      body: { type: 'integration.exposure_updated', data: { integration: 'tools', version: 3 } },
    });
    expect(accepted.status).toBe(201);
    const events = await stored(owner.workspaceId);
    expect(events.at(-1)).toMatchObject({
      type: 'integration.exposure_updated',
      data: { integration: 'tools', version: 3 },
    });
    expect(Object.keys(events.at(-1)!.data as object).sort()).toEqual(['integration', 'version']);
  });

  it('answers the event with webhooks off as with them on, and stores it only when on', async () => {
    const tenant = await createTenant(service.ctx);
    await insertIdentity(store.db, {
      id: newId('idn'),
      workspace_id: tenant.workspaceId,
      slug: 'quiet',
      created_at: service.ctx.now(),
    });
    // An endpoint that would take it: only the workspace's switch keeps the event from being stored.
    await seedActiveEndpoint(
      store.db,
      service.ctx.secretBox,
      tenant.workspaceId,
      'https://hooks.example.com/q',
    );
    const trigger = () =>
      call(service, 'POST', EVENTS, { auth: { key: tenant.key }, body: { type: 'contact.requested' } });
    const rowsOf = async (id: string) =>
      (await store.db.query<{ id: string }>('SELECT id FROM events WHERE id = $1', [id])).length;
    const answered = (result: Awaited<ReturnType<typeof trigger>>) => {
      expect(result.status).toBe(201);
      const { event } = result.body as { event: { id: string } };
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'contact.requested',
        created_at: expect.any(Number),
        identity: 'quiet',
      });
      return event.id;
    };
    const off = answered(await trigger());
    const [counted] = await store.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM events WHERE workspace_id = $1',
      [tenant.workspaceId],
    );
    expect(counted!.n).toBe(0);
    await setWorkspaceFlag(store.db, tenant.workspaceId, 'webhooks_enabled', true);
    const on = answered(await trigger());
    expect([await rowsOf(off), await rowsOf(on)]).toEqual([0, 1]);
  });
});
