import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../support/backends.js';
import { call, createTenant, expectRefusal } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { until } from '../support/until.js';
import { startRelayService } from './support.js';

/**
 * A second look at issue 41: with an owner's password alone (a session never stepped up), the relay behind
 * `svc-webhooks listen` handed out the workspace's signing secret, opened a listener endpoint and took over
 * the owner's listener. For a member with MFA these now need a step-up, as rotating a secret does; keys
 * (what the CLI uses) are unchanged.
 */
describe.each(BACKENDS)('the relay asks a session of a member with MFA to step up, on $name', (backend) => {
  const store = useStore(backend);
  let service: Awaited<ReturnType<typeof startRelayService>>;

  beforeAll(async () => {
    service = await startRelayService(store, { soleInstance: backend.name === 'pglite' });
  });
  afterAll(async () => {
    await service?.close();
  });

  const listeners = (workspaceId: string) =>
    store.db.query<{ id: string; listener_stream: string | null }>(
      `SELECT id, listener_stream FROM webhook_endpoints
        WHERE workspace_id = $1 AND listener_seen_at IS NOT NULL AND deleted_at IS NULL ORDER BY id`,
      [workspaceId],
    );

  /** Opens a stream with `headers` and returns its listener id once `ready` arrives; it stays open. */
  async function openStream(headers: Record<string, string>) {
    const controller = new AbortController();
    const response = await fetch(`${service.baseUrl}/relay/v1/listen`, {
      headers,
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    return { id: /"listener_id":"(whk_[0-9a-f]+)"/.exec(text)![1]!, abort: () => controller.abort() };
  }

  it('refuses the secret, a new listener and a takeover to a password-only session', async () => {
    const tenant = await createTenant(service.ctx, { webhooksEnabled: true });
    const owner = await openStream({ authorization: `Bearer ${tenant.key}` });
    try {
      // The stream claims its listener just after `ready`.
      await until(async () => (await listeners(tenant.workspaceId))[0]?.listener_stream != null);
      const before = await listeners(tenant.workspaceId);
      expect(before.map((row) => row.id)).toEqual([owner.id]);
      const attacker = { cookie: tenant.plainSession };
      for (const path of ['/relay/v1/secret', '/relay/v1/listen', `/relay/v1/listen?listener=${owner.id}`]) {
        const refused = await call(service, 'GET', path, { auth: attacker });
        expectRefusal(refused, 403, 'step_up_required');
        expect(refused.text).not.toMatch(/whsec_|"secret"/);
      }
      // No listener was opened and the owner's stream still holds its listener.
      expect(await listeners(tenant.workspaceId)).toEqual(before);

      // The stepped-up session and the key are answered as before.
      for (const auth of [{ cookie: tenant.steppedUpSession }, { key: tenant.key }]) {
        const answered = await call(service, 'GET', '/relay/v1/secret', { auth });
        expect(answered.status).toBe(200);
        expect((answered.body as { secret: string }).secret.length).toBeGreaterThan(0);
      }
    } finally {
      owner.abort();
    }
  });

  it('answers a member without MFA as before: there is no second factor to show', async () => {
    const tenant = await createTenant(service.ctx, { mfa: false });
    const answered = await call(service, 'GET', '/relay/v1/secret', {
      auth: { cookie: tenant.plainSession },
    });
    expect(answered.status).toBe(200);
  });
});
