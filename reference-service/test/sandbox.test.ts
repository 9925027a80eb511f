import type { Server } from 'node:http';
import { operations } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendAdminCommand, startAdminSocket } from '../src/features/sandbox/admin-socket.js';
import { SANDBOX_EMAIL } from '../src/features/sandbox/seed.js';
import { call, expectRefusal, startTestService, type TestService } from './support/harness.js';
import { initialisedDataDir } from './support/pglite-snapshot.js';
import { useStore } from './support/service-lifecycle.js';

describe('the sandbox and its admin commands', () => {
  const store = useStore();
  let service: TestService;
  let socket: Server;
  let dataDir: string;

  beforeAll(async () => {
    service = await startTestService(store);
    dataDir = await initialisedDataDir('svc-admin-');
    socket = await startAdminSocket(service.ctx, dataDir);
  });
  afterAll(async () => {
    await new Promise((resolve) => socket?.close(resolve));
    await service?.close();
  });

  const admin = async (command: string, ...args: string[]) => {
    const answer = await sendAdminCommand(dataDir, command, args);
    if (!answer) throw new Error('no admin socket');
    return answer;
  };

  it('refuses commands before the sandbox is seeded', async () => {
    expect(await admin('session')).toMatchObject({ ok: false });
    expect(await admin('nonsense')).toMatchObject({ ok: false });
  });

  it('seeds once, printing a working all-scopes key; a second seed does nothing', async () => {
    const seeded = await admin('seed');
    expect(seeded.ok).toBe(true);
    expect(seeded.text).toContain(SANDBOX_EMAIL);
    const key = /svc_[0-9a-f]{16}_[0-9a-f]{64}/.exec(seeded.text)![0];
    const listed = await call(service, 'GET', '/v1/workspace/webhooks', { auth: { key } });
    expect(operations.listWebhooks.success.schema.parse(listed.body).enabled).toBe(true);
    expect((await admin('seed')).text).toContain('already exists');
  });

  it('prints a stepped-up session cookie and the origin that, sent together, reach portal-only operations', async () => {
    const session = await admin('session');
    const cookie = /Cookie: (__Host-svc_session=\S+)/.exec(session.text)![1]!;
    const origin = /Origin: (\S+)/.exec(session.text)![1]!;
    expect(origin).toBe(new URL(service.baseUrl).origin);
    const body = { url: 'https://hooks.example.com/sandbox' };
    const path = '/v1/workspace/webhooks';
    // The cookie alone proves no origin: refused, as a page of another site would be.
    expectRefusal(
      await call(service, 'POST', path, { auth: { cookie }, body, showOrigin: false }),
      403,
      'cross_site',
    );
    const created = await call(service, 'POST', path, { auth: { cookie }, body, headers: { origin } });
    expect(created.status).toBe(201);
  });

  it('mints keys, prints a TOTP code that steps a session up, and flips the workspace flags', async () => {
    const minted = await admin('mint-key', 'service:contacts:read');
    const key = /svc_[0-9a-f]{16}_[0-9a-f]{64}/.exec(minted.text)![0];
    expectRefusal(await call(service, 'GET', '/v1/workspace/webhooks', { auth: { key } }), 403, 'forbidden');
    expect((await admin('mint-key', 'service:bogus')).ok).toBe(false);

    const full = /svc_\S+/.exec((await admin('mint-key')).text)![0];
    await admin('webhooks', 'off');
    const listed = await call(service, 'GET', '/v1/workspace/webhooks', { auth: { key: full } });
    expect(operations.listWebhooks.success.schema.parse(listed.body).enabled).toBe(false);
    expect((await admin('webhooks', 'maybe')).ok).toBe(false);

    const endpoints = operations.listWebhooks.success.schema.parse(listed.body).endpoints;
    const target = `/v1/workspace/webhooks/${endpoints[0]!.id}/secret`;
    await admin('suspend');
    expectRefusal(await call(service, 'POST', target, { auth: { key: full } }), 403, 'workspace_suspended');
    await admin('unsuspend');
    await admin('deletion-hold', 'on');
    expectRefusal(
      await call(service, 'POST', target, { auth: { key: full } }),
      403,
      'workspace_deletion_hold',
    );
    await admin('deletion-hold', 'off');
    expect((await call(service, 'POST', target, { auth: { key: full } })).status).toBe(200);

    const code = (await admin('totp')).text.trim();
    expect(code).toMatch(/^[0-9]{6}$/);
  });
});
