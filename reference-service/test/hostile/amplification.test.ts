import { randomBytes } from 'node:crypto';
import { FAILURES_BEFORE_PAUSE, MAX_ENDPOINTS_PER_HOST, MAX_WEBHOOK_ENDPOINTS } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERIES_PER_HOST, DELIVERIES_PER_WORKSPACE } from '../../src/domain/delivery-limits.js';
import { STRANGER_CALLS_PER_IDENTITY } from '../../src/domain/door-limits.js';
import { newId } from '../../src/domain/ids.js';
import { TEST_EVENTS } from '../../src/features/sandbox/trigger.js';
import { peerEndpointOf, signerFor } from '../../src/peer/own-identity.js';
import { recordAttempt } from '../../src/store/queries/deliveries-claim.js';
import { insertEvents } from '../../src/store/queries/events.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import { BACKENDS } from '../support/backends.js';
import {
  call,
  createTenant,
  expectRefusal,
  startTestService,
  type Tenant,
  type TestService,
} from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { stranger } from '../support/stranger.js';

const WEBHOOKS = '/v1/workspace/webhooks';

/**
 * Attack findings F24 and issue 40 item 2: a sandbox open to strangers must not turn one request into many
 * outbound POSTs at a host someone names. Endpoints are capped per workspace and per host, test events are
 * budgeted, deliveries are paced per workspace and per host when an event fans out, and a resume does not
 * buy a fresh run of failures.
 */
describe.each(BACKENDS)('a workspace cannot amplify its requests, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  const clock = { at: Date.now() };

  beforeAll(async () => {
    service = await startTestService(store, {
      now: () => clock.at,
      extra: { sandboxRoutes: true, sandboxEventBudget: true },
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  const createWebhook = (tenant: Tenant, url: string) =>
    call(service, 'POST', WEBHOOKS, { auth: { cookie: tenant.steppedUpSession }, body: { url, events: [] } });

  /** An identity of the tenant with its signing key, as strangers find it: its slug and fingerprint. */
  async function identityOf(tenant: Tenant) {
    const identity = { id: newId('idn'), slug: `amp-${randomBytes(4).toString('hex')}` };
    await insertIdentity(store.db, { ...identity, workspace_id: tenant.workspaceId, created_at: clock.at });
    const signer = await signerFor(
      store.db,
      service.ctx.secretBox,
      identity,
      peerEndpointOf(service.baseUrl),
      clock.at,
    );
    return { ...identity, fingerprint: signer.fingerprint };
  }

  const deliveriesOf = (workspaceId: string) =>
    store.db.query<{ host: string | null; next_attempt_at: number | null }>(
      `SELECT e.host, d.next_attempt_at::float8 AS next_attempt_at FROM webhook_deliveries d
         JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.workspace_id = $1 ORDER BY d.next_attempt_at NULLS FIRST`,
      [workspaceId],
    );

  it(`caps live endpoints at ${MAX_WEBHOOK_ENDPOINTS} per workspace; deleting one makes room`, async () => {
    const tenant = await createTenant(service.ctx);
    const create = (i: number) => createWebhook(tenant, `https://h${i}.hooks.example.com/hook`);
    const ids: string[] = [];
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) {
      const created = await create(i);
      expect(created.status).toBe(201);
      ids.push((created.body as { endpoint: { id: string } }).endpoint.id);
    }
    expectRefusal(await create(99), 403, 'forbidden');
    const auth = { cookie: tenant.steppedUpSession };
    expect((await call(service, 'DELETE', `${WEBHOOKS}/${ids[0]}`, { auth })).status).toBe(204);
    expect((await create(100)).status).toBe(201);
  });

  it(`the measured attack: ${MAX_ENDPOINTS_PER_HOST} endpoints on the victim, so a stranger's request makes at most ${MAX_ENDPOINTS_PER_HOST} POSTs there`, async () => {
    const tenant = await createTenant(service.ctx, { webhooksEnabled: true });
    const victim = 'https://victim.hooks.example.com/hook';
    const answers = [];
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) answers.push(await createWebhook(tenant, victim));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(MAX_ENDPOINTS_PER_HOST);
    const refused = answers.at(-1)!;
    expectRefusal(refused, 403, 'forbidden');
    expect((refused.body as { error: { message: string } }).error.message).toContain(
      'victim.hooks.example.com',
    );
    // Another port or spelling of the same host is the same host.
    expectRefusal(await createWebhook(tenant, 'https://VICTIM.hooks.example.com:8443/x'), 403, 'forbidden');

    const target = await identityOf(tenant);
    const sent = STRANGER_CALLS_PER_IDENTITY.capacity + 5;
    let accepted = 0;
    for (let i = 0; i < sent; i++) {
      const caller = stranger();
      const body = JSON.stringify({ card: caller.card(clock.at) });
      const answer = await caller.post(
        service.baseUrl,
        target.fingerprint,
        'request',
        body,
        clock.at,
        newId('n'),
      );
      if (answer.status === 200) accepted++;
      else expect(answer.status).toBe(429);
    }
    expect(accepted).toBe(STRANGER_CALLS_PER_IDENTITY.capacity);
    const rows = await deliveriesOf(tenant.workspaceId);
    expect(rows.every((row) => row.host === 'victim.hooks.example.com')).toBe(true);
    expect(rows).toHaveLength(accepted * MAX_ENDPOINTS_PER_HOST);
    expect(rows.length / sent).toBeLessThanOrEqual(MAX_ENDPOINTS_PER_HOST);
  });

  it('paces deliveries per workspace, and per host across workspaces; a backlog delays only its own', async () => {
    const host = `paced-${randomBytes(3).toString('hex')}.hooks.example.com`;
    const tenants = await Promise.all(
      [1, 2, 3, 4, 5].map(() => createTenant(service.ctx, { webhooksEnabled: true })),
    );
    const [flooder, quiet, busy, busier, late] = tenants;
    for (const tenant of tenants) {
      for (let i = 0; i < MAX_ENDPOINTS_PER_HOST; i++) {
        expect((await createWebhook(tenant, `https://${host}/${i}`)).status).toBe(201);
      }
    }
    clock.at += 1;
    const fire = (tenant: Tenant, n: number) =>
      store.db.transaction((tx) =>
        insertEvents(
          tx,
          Array.from({ length: n }, (_, i) => ({
            workspaceId: tenant.workspaceId,
            identity: 'paced',
            type: 'integration.created' as const,
            data: { integration: `int-${i}` },
            createdAt: clock.at,
          })),
        ),
      );
    const dueTimes = async (tenant: Tenant) =>
      (await deliveriesOf(tenant.workspaceId)).map((row) => row.next_attempt_at);
    // 200 events to 3 endpoints: the workspace's burst goes at once, the rest at its pace, nothing dropped.
    const { capacity, perMs } = DELIVERIES_PER_WORKSPACE;
    await fire(flooder!, 200);
    const flooded = await dueTimes(flooder!);
    expect(flooded).toHaveLength(200 * MAX_ENDPOINTS_PER_HOST);
    expect(flooded.filter((due) => due === null)).toHaveLength(capacity);
    expect(flooded.at(-1)).toBe(clock.at + (flooded.length - capacity) / perMs);
    // Its backlog took nothing of the host's: another workspace's deliveries there go at once.
    await fire(quiet!, 1);
    expect(await dueTimes(quiet!)).toEqual([null, null, null]);
    // What workspaces let go at once does spend the host's budget, whichever workspace it comes from.
    // (two workspaces, each within its own burst, spend what the host has left).
    const left = (DELIVERIES_PER_HOST.capacity - capacity - MAX_ENDPOINTS_PER_HOST) / MAX_ENDPOINTS_PER_HOST;
    const share = Math.floor(capacity / MAX_ENDPOINTS_PER_HOST);
    await fire(busy!, share);
    await fire(busier!, left - share);
    for (const tenant of [busy!, busier!]) {
      expect((await dueTimes(tenant)).every((due) => due === null)).toBe(true);
    }
    await fire(late!, 1);
    expect(await dueTimes(late!)).toEqual(
      [1, 2, 3].map((i) => clock.at + Math.ceil(i / DELIVERIES_PER_HOST.perMs)),
    );
  });

  it('the pace holds when events fan out at once in concurrent transactions', async () => {
    const tenant = await createTenant(service.ctx, { webhooksEnabled: true });
    const host = `concurrent-${randomBytes(3).toString('hex')}.hooks.example.com`;
    for (let i = 0; i < MAX_ENDPOINTS_PER_HOST; i++) {
      expect((await createWebhook(tenant, `https://${host}/${i}`)).status).toBe(201);
    }
    clock.at += 1;
    const events = Math.ceil((DELIVERIES_PER_WORKSPACE.capacity + 60) / MAX_ENDPOINTS_PER_HOST);
    await Promise.all(
      Array.from({ length: events }, (_, i) =>
        store.db.transaction((tx) =>
          insertEvents(tx, [
            {
              workspaceId: tenant.workspaceId,
              identity: 'concurrent',
              type: 'integration.created',
              data: { integration: `int-${i}` },
              createdAt: clock.at,
            },
          ]),
        ),
      ),
    );
    const rows = await deliveriesOf(tenant.workspaceId);
    expect(rows).toHaveLength(events * MAX_ENDPOINTS_PER_HOST);
    expect(rows.filter((row) => row.next_attempt_at === null)).toHaveLength(
      DELIVERIES_PER_WORKSPACE.capacity,
    );
    // Every row past the burst has a slot of its own: no two transactions read the same tokens.
    const due = rows.flatMap((row) => (row.next_attempt_at === null ? [] : [row.next_attempt_at]));
    expect(new Set(due).size).toBe(due.length);
    expect(Math.max(...due)).toBe(
      clock.at + (rows.length - DELIVERIES_PER_WORKSPACE.capacity) / DELIVERIES_PER_WORKSPACE.perMs,
    );
  });

  it('a resumed endpoint that was paused by failures is paused again by its next failure', async () => {
    const tenant = await createTenant(service.ctx, { webhooksEnabled: true });
    const created = await createWebhook(tenant, 'https://failing.hooks.example.com/hook');
    const id = (created.body as { endpoint: { id: string } }).endpoint.id;
    await store.db.query(
      `UPDATE webhook_endpoints SET status = 'paused', consecutive_failures = $2 WHERE id = $1`,
      [id, FAILURES_BEFORE_PAUSE],
    );
    const auth = { cookie: tenant.steppedUpSession };
    const setStatus = async (status: 'active' | 'paused') => {
      const answer = await call(service, 'PATCH', `${WEBHOOKS}/${id}`, { auth, body: { status } });
      expect(answer.status).toBe(200);
      return (answer.body as { endpoints: { status: string; consecutive_failures: number }[] }).endpoints[0];
    };
    const probation = { status: 'active', consecutive_failures: FAILURES_BEFORE_PAUSE - 1 };
    expect(await setStatus('active')).toMatchObject(probation);
    // A pause and a resume by hand clear nothing either.
    await setStatus('paused');
    expect(await setStatus('active')).toMatchObject(probation);

    clock.at += 1;
    const attempt = async (ok: boolean) => {
      const [event] = await insertEvents(store.db, [
        {
          workspaceId: tenant.workspaceId,
          identity: 'probe',
          type: 'integration.created',
          data: { integration: newId('int') },
          createdAt: clock.at,
        },
      ]);
      const [row] = await store.db.query<{ id: string }>(
        `UPDATE webhook_deliveries SET status = 'sending', claimed_at = $2, claimed_by = 'test'
          WHERE event_id = $1 RETURNING id`,
        [event!.id, clock.at],
      );
      const result = {
        deliveryId: row!.id,
        httpStatus: ok ? 200 : 500,
        latencyMs: 1,
        excerpt: null,
        noAnswerReason: null,
      };
      return recordAttempt(store.db, { ...result, ok }, clock.at);
    };
    expect(await attempt(false)).toBe(true);
    expect(await setStatus('active')).toMatchObject(probation);
    expect(await attempt(true)).toBe(false);
    const [after] = (
      (await call(service, 'GET', WEBHOOKS, { auth })).body as {
        endpoints: { consecutive_failures: number }[];
      }
    ).endpoints;
    expect(after!.consecutive_failures).toBe(0);
  });

  it(`budgets test events: ${TEST_EVENTS.capacity}, then one every 10 seconds`, async () => {
    const tenant = await createTenant(service.ctx);
    await insertIdentity(store.db, {
      id: newId('idn'),
      workspace_id: tenant.workspaceId,
      slug: `amp-${tenant.workspaceId.slice(-8)}`,
      created_at: clock.at,
    });
    const trigger = () =>
      call(service, 'POST', '/sandbox/events', {
        auth: { key: tenant.key },
        body: { type: 'message.received' },
      });
    // A trigger refused for what it says (no such identity) writes nothing and spends nothing.
    for (let i = 0; i < 3; i++) {
      const invalid = await call(service, 'POST', '/sandbox/events', {
        auth: { key: tenant.key },
        body: { type: 'message.received', identity: 'no-such-identity' },
      });
      expectRefusal(invalid, 400, 'invalid_request');
    }
    for (let i = 0; i < TEST_EVENTS.capacity; i++) expect((await trigger()).status).toBe(201);
    const refused = await trigger();
    expectRefusal(refused, 429, 'rate_limited');
    expect((refused.body as { error: { retry_after: number } }).error.retry_after).toBeLessThanOrEqual(10);
    clock.at += 10_000;
    expect((await trigger()).status).toBe(201);
  });
});
