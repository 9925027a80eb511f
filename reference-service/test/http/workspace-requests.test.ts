// Attack notes: 60 connections of plain authenticated reads from one tenant (about 1,500 a second) took
// another tenant's p50 from 3.7 ms to 40–55 ms. Each workspace now has a budget of requests per instance,
// spent after authentication and before the operation runs.
import { errorBodySchema } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_WORKSPACE_REQUEST_RATE,
  workspaceRequestLimit,
} from '../../src/domain/workspace-requests.js';
import { BACKENDS } from '../support/backends.js';
import {
  type CallResult,
  call,
  createTenant,
  expectRefusal,
  startTestService,
  type Tenant,
  type TestService,
} from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';

/** The service's own default: this suite does not lower it to make the test quick. */
const BURST = workspaceRequestLimit(DEFAULT_WORKSPACE_REQUEST_RATE).capacity;

describe.each(BACKENDS)('the request budget of each workspace on $name', (backend) => {
  const store = useStore(backend);
  // Stands still unless a test moves it: no token comes back while a burst is sent.
  const clock = { at: Date.now(), now: () => clock.at };
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(store, { now: clock.now });
  });
  afterAll(async () => {
    await service?.close();
  });

  const listWebhooks = (tenant: Tenant) =>
    call(service, 'GET', '/v1/workspace/webhooks', { auth: { key: tenant.key } });
  const createWebhook = (tenant: Tenant, path: string) =>
    call(service, 'POST', '/v1/workspace/webhooks', {
      auth: { cookie: tenant.steppedUpSession },
      body: { url: `https://hooks.example.com/${path}` },
    });
  const endpointRows = async (workspaceId: string) =>
    (
      await store.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1',
        [workspaceId],
      )
    )[0]!.n;
  /** `n` calls, ten at a time, as a client with a few connections sends them. */
  const send = async (n: number, one: () => Promise<CallResult>): Promise<CallResult[]> => {
    const answers: CallResult[] = [];
    for (let i = 0; i < n; i += 10)
      answers.push(...(await Promise.all(Array.from({ length: Math.min(10, n - i) }, one))));
    return answers;
  };
  const expectRateLimited = (answer: CallResult) => {
    expectRefusal(answer, 429, 'rate_limited');
    const { error } = errorBodySchema.parse(answer.body);
    expect(error.retry_after).toBeGreaterThanOrEqual(1);
    expect(answer.headers.get('retry-after')).toBe(String(error.retry_after));
    expect(error.message).toContain('requests from this workspace');
  };

  it('answers 429 past the burst, runs nothing refused, and holds no other workspace back', async () => {
    const flooder = await createTenant(service.ctx);
    const quiet = await createTenant(service.ctx);
    expect((await createWebhook(flooder, 'before')).status).toBe(201);

    const burst = await send(BURST - 1, () => listWebhooks(flooder));
    expect(burst.map((answer) => answer.status)).toEqual(Array(BURST - 1).fill(200));
    expectRateLimited(await listWebhooks(flooder));

    // The session spends the same budget as the key: its createWebhook is refused and writes no row.
    const refused = await createWebhook(flooder, 'refused');
    expectRateLimited(refused);
    expect(await endpointRows(flooder.workspaceId)).toBe(1);

    // While the flooder is refused, the quiet workspace's reads and writes go through.
    const [flood, quietReads] = await Promise.all([
      send(30, () => listWebhooks(flooder)),
      send(30, () => listWebhooks(quiet)),
    ]);
    for (const answer of flood) expectRateLimited(answer);
    expect(quietReads.map((answer) => answer.status)).toEqual(Array(30).fill(200));
    expect((await createWebhook(quiet, 'quiet')).status).toBe(201);
    expect(await endpointRows(quiet.workspaceId)).toBe(1);

    // Signing out is never refused: a flood by the workspace's keys does not hold a person's session.
    const signOut = await call(service, 'DELETE', '/v1/session', { auth: { cookie: flooder.plainSession } });
    expect(signOut.status).toBe(204);
    expectRefusal(
      await call(service, 'GET', '/v1/session', { auth: { cookie: flooder.plainSession } }),
      401,
      'unauthenticated',
    );
  });

  it('refills with time: a second gives back a second’s worth, and no more', async () => {
    const tenant = await createTenant(service.ctx);
    await send(BURST, () => listWebhooks(tenant));
    const refused = await listWebhooks(tenant);
    expectRateLimited(refused);
    // One request comes back in a fiftieth of a second: the smallest wait a client is told is a second.
    expect(refused.headers.get('retry-after')).toBe('1');

    clock.at += 1_000;
    const refilled = await send(DEFAULT_WORKSPACE_REQUEST_RATE, () => listWebhooks(tenant));
    expect(refilled.map((answer) => answer.status)).toEqual(Array(DEFAULT_WORKSPACE_REQUEST_RATE).fill(200));
    expectRateLimited(await createWebhook(tenant, 'one-too-many'));
    expect(await endpointRows(tenant.workspaceId)).toBe(0);

    clock.at += 1_000;
    expect((await createWebhook(tenant, 'after-the-wait')).status).toBe(201);
  });

  it('refuses a key of a spent workspace before looking it up, a wrong secret with its id alike', async () => {
    const tenant = await createTenant(service.ctx);
    // A well-formed key (hex secret) with the tenant's id and another secret.
    const wrongSecret = `${tenant.key.slice(0, -2)}${tenant.key.endsWith('00') ? 'ff' : '00'}`;
    await send(BURST, () => listWebhooks(tenant));
    const read = (key: string) => call(service, 'GET', '/v1/workspace/webhooks', { auth: { key } });
    // The id alone names the spent workspace: no lookup is made, so the secret is not even compared.
    expectRateLimited(await read(wrongSecret));
    clock.at += 1_000;
    expectRefusal(await read(wrongSecret), 401, 'unauthenticated');
    expect((await read(tenant.key)).status).toBe(200);
  });

  it('counts only authenticated calls: refused credentials spend nothing of the workspace', async () => {
    const tenant = await createTenant(service.ctx);
    const wrongKey = `${tenant.key.slice(0, -2)}xx`;
    for (let i = 0; i < 20; i++) {
      const answer = await call(service, 'GET', '/v1/workspace/webhooks', { auth: { key: wrongKey } });
      expect(answer.status).toBe(401);
    }
    const burst = await send(BURST, () => listWebhooks(tenant));
    expect(burst.every((answer) => answer.status === 200)).toBe(true);
    expectRateLimited(await listWebhooks(tenant));
  });
});
