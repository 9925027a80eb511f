import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendAdminCommand, startAdminSocket } from '../../src/features/sandbox/admin-socket.js';
import { SANDBOX_EMAIL } from '../../src/features/sandbox/seed.js';
import { startTestService, type TestService } from '../support/harness.js';
import { initialisedDataDir } from '../support/pglite-snapshot.js';
import { useStore } from '../support/service-lifecycle.js';
import { cookieOf, expectError, freshAddress, PASSWORD, portalCall, uniqueEmail } from './support.js';

describe('the operator creates workspaces where sign-up is closed', () => {
  const store = useStore();
  let service: TestService;
  let socket: Server;
  let dataDir: string;

  beforeAll(async () => {
    service = await startTestService(store, { extra: { signUpOpen: false } });
    dataDir = await initialisedDataDir('svc-operator-');
    socket = await startAdminSocket(service.ctx, dataDir);
  });
  afterAll(async () => {
    await new Promise((resolve) => socket?.close(resolve));
    await service?.close();
  });

  const admin = async (...args: string[]) => {
    const answer = await sendAdminCommand(dataDir, args[0]!, args.slice(1));
    if (!answer) throw new Error('no admin socket');
    return answer;
  };

  it('create-workspace prints a one-time link on which the owner chooses a password', async () => {
    const email = uniqueEmail('operator-made');
    const made = await admin('create-workspace', 'Partner Co', '--owner', email);
    expect(made.ok).toBe(true);
    const link = /(http:\/\/\S+\/#\/invite\/([A-Za-z0-9_-]{43}))/.exec(made.text);
    expect(link?.[1]?.startsWith(new URL(service.baseUrl).origin)).toBe(true);
    // Nobody can sign in before the link is used.
    expectError(
      await portalCall(service.baseUrl, 'POST', '/v1/sessions', {
        body: { email, password: PASSWORD },
        from: freshAddress(),
      }),
      401,
      'unauthenticated',
    );
    const accepted = await portalCall(service.baseUrl, 'POST', '/v1/invites/accept', {
      body: { token: link![2], password: PASSWORD },
      from: freshAddress(),
    });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({
      member: { email, owner: true, mfa_enrolled: false },
      workspace: { name: 'Partner Co', webhooks_enabled: true },
    });
    const view = await portalCall(service.baseUrl, 'GET', '/v1/session', { cookie: cookieOf(accepted) });
    expect((view.body as { identities: unknown[] }).identities).toHaveLength(2);
    expect((await admin('create-workspace', 'Again', '--owner', email)).ok).toBe(false);
  });

  it('refuses bad usage, and the sandbox owner is the owner of the sandbox', async () => {
    for (const args of [
      ['create-workspace'],
      ['create-workspace', 'x', '--owner'],
      ['create-workspace', 'x', '--owner', 'not-an-email'],
      ['create-workspace', '', '--owner', uniqueEmail()],
    ]) {
      expect((await admin(...args)).ok, args.join(' ')).toBe(false);
    }
    expect((await admin('seed')).text).toContain(SANDBOX_EMAIL);
    const rows = await store.db.query<{ owner: boolean }>('SELECT owner FROM members WHERE email = $1', [
      SANDBOX_EMAIL,
    ]);
    expect(rows).toEqual([{ owner: true }]);
  });
});
