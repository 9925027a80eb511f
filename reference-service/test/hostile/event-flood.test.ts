import { randomBytes } from 'node:crypto';
import { MAX_WEBHOOK_ENDPOINTS } from '@svc-kit/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERIES_PER_WORKSPACE, WORKSPACE_BACKLOG_MS } from '../../src/domain/delivery-limits.js';
import { newId } from '../../src/domain/ids.js';
import { peerEndpointOf, signerFor } from '../../src/peer/own-identity.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import { BACKENDS } from '../support/backends.js';
import { call, createTenant, startTestService, type TestService } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { stranger } from '../support/stranger.js';

/** Rows a workspace may have waiting for its pace before an operation that records an event is refused. */
const BOUND = WORKSPACE_BACKLOG_MS * DELIVERIES_PER_WORKSPACE.perMs;
/** Renames that reach the bound, one event to every endpoint each, with room for the pace's refill. */
const MOST_RENAMES = 2 * Math.ceil((DELIVERIES_PER_WORKSPACE.capacity + BOUND) / MAX_WEBHOOK_ENDPOINTS);

/**
 * Issue 40, items 2 and 8 (attack notes): the test-event trigger was budgeted, but no other operation
 * that records an event was. One API key renaming a contact back and forth recorded 1,638 events in 10 s
 * on the sandbox, each fanned out to every endpoint of the workspace: 16,380 delivery rows, of which the
 * workspace's pace (20 a second) let 400 go. The rest waited as `pending` rows with a due time, for hours:
 * the pace bounds what leaves, not what is stored. Now a workspace further behind its pace than
 * WORKSPACE_BACKLOG_MS is refused (429, with when to retry) any operation that would record an event,
 * its own calls and its peers' alike, and a refused call writes nothing.
 */
describe.each(BACKENDS)('own calls cannot queue deliveries without bound, on $name', (backend) => {
  const store = useStore(backend);
  let service: TestService;
  // The service's clock, still unless moved: the pace refills nothing meanwhile, so the bound is exact.
  const clock = { at: Date.now() };

  beforeAll(async () => {
    service = await startTestService(store, {
      allowLocalhostWebhooks: true,
      now: () => clock.at,
      // Hundreds of renames while the clock stands still: the request budget would refuse them first.
      requests: undefined,
    });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('refuses a flood of contact renames once the backlog passes its bound, writing nothing', async () => {
    const tenant = await createTenant(service.ctx, { webhooksEnabled: true });
    const identity = { id: newId('idn'), slug: `flood-${randomBytes(4).toString('hex')}` };
    await insertIdentity(store.db, { ...identity, workspace_id: tenant.workspaceId, created_at: clock.at });
    const { fingerprint } = await signerFor(
      store.db,
      service.ctx.secretBox,
      identity,
      peerEndpointOf(service.baseUrl),
      clock.at,
    );
    for (let i = 0; i < MAX_WEBHOOK_ENDPOINTS; i++) {
      const created = await call(service, 'POST', '/v1/workspace/webhooks', {
        auth: { cookie: tenant.steppedUpSession },
        body: { url: `http://localhost:1/flood${i}`, events: [] },
      });
      expect(created.status).toBe(201);
    }
    clock.at += 1;
    // One contact row to rename: a stranger's request, which the owner has not answered.
    const caller = stranger();
    const ask = (who: ReturnType<typeof stranger>) => who.request(service.baseUrl, fingerprint, clock.at);
    expect((await ask(caller)).status).toBe(200);

    const path = `/v1/identities/${identity.slug}/contacts/${encodeURIComponent(caller.fingerprint)}/petname`;
    const rename = (petname: string) =>
      call(service, 'PATCH', path, { auth: { key: tenant.key }, body: { petname } });
    const snapshot = async () => {
      const [row] = await store.db.query<{
        petname: string;
        status: string;
        spent: number;
        events: number;
        deliveries: number;
        contacts: number;
      }>(
        `SELECT (SELECT petname FROM contacts WHERE identity_id = $2 AND fingerprint = $3) AS petname,
                (SELECT status FROM contacts WHERE identity_id = $2 AND fingerprint = $3) AS status,
                (SELECT count(*)::int FROM outbound_budgets WHERE bucket LIKE 'contact:%') AS spent,
                (SELECT count(*)::int FROM events WHERE workspace_id = $1) AS events,
                (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = $1) AS deliveries,
                (SELECT count(*)::int FROM contacts WHERE identity_id = $2) AS contacts`,
        [tenant.workspaceId, identity.id, caller.fingerprint],
      );
      return row!;
    };
    let renamed = 0;
    let refused: Awaited<ReturnType<typeof rename>> | undefined;
    let before = await snapshot();
    while (refused === undefined && renamed < MOST_RENAMES) {
      before = await snapshot();
      const answer = await rename(`name ${renamed}`);
      if (answer.status === 200) renamed++;
      else refused = answer;
    }
    // The flood went through until its workspace's rows waiting for the pace passed the bound, not before.
    expect(refused?.status).toBe(429);
    // The clock stood still: every row past the bucket's capacity waits for the pace.
    const queued = before.deliveries - DELIVERIES_PER_WORKSPACE.capacity;
    expect(queued).toBeGreaterThan(BOUND);
    expect(queued).toBeLessThanOrEqual(BOUND + MAX_WEBHOOK_ENDPOINTS);
    const retryAfter = Number(refused!.headers.get('retry-after'));
    expect((refused!.body as { error: { code: string; retry_after: number } }).error).toMatchObject({
      code: 'rate_limited',
      retry_after: retryAfter,
    });
    // The last event admitted took the debt at most one event's rows past the bound: a second of the pace.
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(
      Math.ceil(MAX_WEBHOOK_ENDPOINTS / DELIVERIES_PER_WORKSPACE.perMs / 1000),
    );
    // The refused rename changed nothing: not the petname, and no event or delivery row.
    expect(await snapshot()).toEqual(before);

    // What waits for the pace is the bound, and at most one event's rows past it.
    const [waiting] = await store.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries
        WHERE workspace_id = $1 AND status = 'pending' AND next_attempt_at > $2`,
      [tenant.workspaceId, clock.at],
    );
    expect(waiting!.n).toBe(queued);

    // A peer's call that would record an event is refused too, in the peer protocol's words, leaving no row.
    const refusedPeer = await ask(stranger());
    expect(refusedPeer.status).toBe(429);
    expect(Number(refusedPeer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await refusedPeer.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(await snapshot()).toEqual(before);

    // An answer that would tell the party is refused before the party is called or a budget spent.
    const approve = await call(service, 'POST', path.replace(/petname$/, 'approve'), {
      auth: { key: tenant.key },
      body: {},
    });
    expect(approve.status).toBe(429);
    expect(await snapshot()).toEqual(before);
    expect(before).toMatchObject({ status: 'pending_in', spent: 0 });

    // Turning the party away is never refused by the backlog: strangers' requests alone can fill a
    // workspace past it, and its owner must still be able to block them (one event, once per row).
    const blocked = await call(service, 'POST', path.replace(/petname$/, 'block'), {
      auth: { key: tenant.key },
    });
    expect(blocked.status).toBe(200);
    expect(await snapshot()).toMatchObject({ status: 'blocked', events: before.events + 1 });

    // Retry-After is truthful: once it has passed, the workspace is back under the bound (the block's
    // rows counted too, so the wait is read again).
    const stillRefused = await rename('too soon');
    expect(stillRefused.status).toBe(429);
    clock.at += Number(stillRefused.headers.get('retry-after')) * 1000;
    expect((await rename('after the wait')).status).toBe(200);
    expect((await snapshot()).petname).toBe('after the wait');
  }, 120_000);
});
