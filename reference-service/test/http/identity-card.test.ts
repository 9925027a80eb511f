import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import { call, createTenant, expectRefusal } from '../support/harness.js';
import { serviceForTests } from '../support/service-lifecycle.js';

// The portal's "your card" box: an identity's own card, found by slug, only inside its workspace.
describe('GET /v1/identities/{slug}/card', () => {
  const running = serviceForTests();

  async function tenantWithIdentity(permissions?: Parameters<typeof createTenant>[1]) {
    const tenant = await createTenant(running.service.ctx, permissions);
    const slug = `who-${newId('x').slice(-8)}`;
    await insertIdentity(running.service.ctx.db, {
      id: newId('idn'),
      workspace_id: tenant.workspaceId,
      slug,
      created_at: Date.now(),
    });
    return { tenant, slug };
  }

  it('answers the card the peer endpoint hands out, the same for a session and a key', async () => {
    const { tenant, slug } = await tenantWithIdentity();
    const first = await call(running.service, 'GET', `/v1/identities/${slug}/card`, {
      auth: { cookie: tenant.plainSession },
    });
    expect(first.status).toBe(200);
    const body = first.body as { slug: string; fingerprint: string; card: string };
    expect(body.slug).toBe(slug);
    expect(body.card.length).toBeGreaterThan(100);
    const peer = await fetch(`${running.service.baseUrl}/peer/v1/identities/${body.fingerprint}/card`);
    expect(((await peer.json()) as { card: string }).card).toBe(body.card);
    const again = await call(running.service, 'GET', `/v1/identities/${slug}/card`, {
      auth: { key: tenant.key },
    });
    expect(again.body).toEqual(body);
  });

  it('refuses another workspace’s identity, a caller without contacts:read, and no credentials', async () => {
    const { slug } = await tenantWithIdentity();
    const stranger = await createTenant(running.service.ctx);
    expectRefusal(
      await call(running.service, 'GET', `/v1/identities/${slug}/card`, { auth: { key: stranger.key } }),
      404,
      'not_found',
    );
    // Its contacts too: the list reads the identity and its contacts in one statement, by workspace.
    expectRefusal(
      await call(running.service, 'GET', `/v1/identities/${slug}/contacts`, { auth: { key: stranger.key } }),
      404,
      'not_found',
    );
    const { tenant: narrow, slug: own } = await tenantWithIdentity({
      permissions: ['service:workspace:admin'],
    });
    expectRefusal(
      await call(running.service, 'GET', `/v1/identities/${own}/card`, { auth: { key: narrow.key } }),
      403,
      'forbidden',
    );
    expectRefusal(await call(running.service, 'GET', `/v1/identities/${own}/card`), 401, 'unauthenticated');
  });
});
