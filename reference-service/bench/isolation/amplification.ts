/**
 * Amplification (issue 40, item 2): the most POSTs a probe can make the service send to one host, per
 * request it sends, over 10 minutes of the service's clock. Two probes, each playing as well as it can
 * (it sends nothing it knows will be refused, and waits out a 429's `retry_after`):
 * - with an account: it signs up, puts as many endpoints as it may on a victim host, and then causes
 *   events as fast as the service lets it: contact requests to its own identity from fresh keys (no
 *   account needed) and the sandbox's test events;
 * - without an account: a tenant has as many endpoints as it may on its receiver's host, and the probe
 *   sends it contact requests from fresh keys.
 * POSTs out are the delivery rows made for endpoints on that host whose due time (`next_attempt_at`, or at
 * once) falls in the window: each row is dialled once, never again. Requests in are the requests the
 * service accepted, with one for the sign-up and one per endpoint made.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_ENDPOINTS_PER_HOST } from '@svc-kit/contract';
import { newId } from '../../src/domain/ids.js';
import { peerEndpointOf, signerFor } from '../../src/peer/own-identity.js';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import {
  call,
  createTenant,
  startTestService,
  type Tenant,
  type TestService,
} from '../../test/support/harness.js';
import { stranger } from '../../test/support/stranger.js';
import type { BenchEnv } from '../support/backends.js';
import { type Row, verdict } from '../support/table.js';

const WINDOW_MS = 10 * 60 * 1000;
const TARGET_WITHOUT_ACCOUNT = 5;

interface Probe {
  service: TestService;
  store: OpenedStore;
  clock: { at: number };
}

/** `MAX_ENDPOINTS_PER_HOST` endpoints of the tenant on `host` (one request each), and an identity. */
async function pointAt(probe: Probe, tenant: Tenant, host: string) {
  for (let i = 0; i < MAX_ENDPOINTS_PER_HOST; i++) {
    const created = await call(probe.service, 'POST', '/v1/workspace/webhooks', {
      auth: { cookie: tenant.steppedUpSession },
      body: { url: `https://${host}/hook-${i}`, events: [] },
    });
    if (created.status !== 201) throw new Error(`endpoint ${i} on ${host}: ${created.text}`);
  }
  const identity = { id: newId('idn'), slug: `probe-${newId('s').slice(-8)}` };
  const { db } = probe.store;
  await insertIdentity(db, { ...identity, workspace_id: tenant.workspaceId, created_at: probe.clock.at });
  const signer = await signerFor(
    db,
    probe.service.ctx.secretBox,
    identity,
    peerEndpointOf(probe.service.baseUrl),
    probe.clock.at,
  );
  return signer.fingerprint;
}

/** A contact request from a fresh key: answers the seconds to wait when refused. */
async function contactRequest(probe: Probe, fingerprint: string): Promise<number | undefined> {
  const caller = stranger();
  const body = JSON.stringify({ card: caller.card(probe.clock.at) });
  const answer = await caller.post(
    probe.service.baseUrl,
    fingerprint,
    'request',
    body,
    probe.clock.at,
    newId('n'),
  );
  const parsed = (await answer.json()) as { error?: { retry_after?: number } };
  return answer.status === 200 ? undefined : (parsed.error?.retry_after ?? 60);
}

/** A test event of the tenant's workspace: answers the seconds to wait when refused. */
async function testEvent(probe: Probe, tenant: Tenant): Promise<number | undefined> {
  const answer = await call(probe.service, 'POST', '/sandbox/events', {
    auth: { key: tenant.key },
    body: { type: 'message.received' },
  });
  return answer.status === 201
    ? undefined
    : ((answer.body as { error?: { retry_after?: number } }).error?.retry_after ?? 60);
}

/** Delivery rows to `host` due from `from` to the end of the window. */
async function postsTo(probe: Probe, host: string, from: number): Promise<number> {
  const [row] = await probe.store.db.query<{ posts: number }>(
    `SELECT count(*)::int AS posts FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE e.host = $1 AND COALESCE(d.next_attempt_at, d.created_at) BETWEEN $2 AND $3`,
    [host, from, from + WINDOW_MS],
  );
  return row!.posts;
}

/**
 * Sends each door's next request as soon as the door may take it, while the window lasts: a refused door
 * is left alone for the wait it named, and when every door waits the clock moves to the first one ready.
 * Answers the requests accepted: a probe that knows the published budgets sends no others, so refused
 * requests are left out of what came in (the worst ratio, not the one this probe happens to reach).
 */
async function flood(probe: Probe, doors: (() => Promise<number | undefined>)[], until: number) {
  let accepted = 0;
  const readyAt = doors.map(() => probe.clock.at);
  while (probe.clock.at < until) {
    for (const [i, door] of doors.entries()) {
      if (readyAt[i]! > probe.clock.at) continue;
      const wait = await door();
      if (wait === undefined) accepted++;
      // A hair past the wait: a bucket refilled to exactly one token may read a rounding short of it.
      else readyAt[i] = probe.clock.at + Math.max(1, wait) * 1000 + 100;
    }
    const next = Math.min(...readyAt);
    if (next > probe.clock.at) probe.clock.at = next;
  }
  return accepted;
}

async function withAccount(probe: Probe): Promise<{ posts: number; sent: number }> {
  const from = probe.clock.at;
  const host = 'victim.hooks.example.com';
  // The sign-up (one request; the bench writes the account straight to the store) and the endpoints.
  const tenant = await createTenant(probe.service.ctx, { webhooksEnabled: true });
  const fingerprint = await pointAt(probe, tenant, host);
  const sent = await flood(
    probe,
    [() => contactRequest(probe, fingerprint), () => testEvent(probe, tenant)],
    from + WINDOW_MS,
  );
  return { posts: await postsTo(probe, host, from), sent: 1 + MAX_ENDPOINTS_PER_HOST + sent };
}

async function withoutAccount(probe: Probe): Promise<{ posts: number; sent: number }> {
  const host = 'receiver.hooks.example.com';
  const tenant = await createTenant(probe.service.ctx, { webhooksEnabled: true });
  const fingerprint = await pointAt(probe, tenant, host);
  const from = probe.clock.at;
  const sent = await flood(probe, [() => contactRequest(probe, fingerprint)], from + WINDOW_MS);
  return { posts: await postsTo(probe, host, from), sent };
}

export async function runAmplificationBench(env: BenchEnv, label: string): Promise<Row[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-amplification-'));
  const store = await openStore({ databaseUrl: env.DATABASE_URL || undefined, dataDir });
  const clock = { at: Date.now() };
  const service = await startTestService(store, {
    now: () => clock.at,
    extra: { sandboxRoutes: true, sandboxEventBudget: true },
    // The clock stands still, so the request budget would never refill: the bench measures what the
    // delivery bounds alone let a probe reach, as before that budget existed.
    requests: undefined,
  });
  try {
    const probe = { service, store, clock };
    const ratio = ({ posts, sent }: { posts: number; sent: number }) =>
      `${(posts / sent).toFixed(2)} (${posts} ÷ ${sent})`;
    const owned = await withAccount(probe);
    const stranger = await withoutAccount(probe);
    return [
      [
        `amplification with an account, POSTs at one host ÷ requests, 10 min (${label})`,
        ratio(owned),
        '',
        '',
      ],
      [
        `amplification without an account, POSTs at one host ÷ requests, 10 min (${label})`,
        ratio(stranger),
        `< ${TARGET_WITHOUT_ACCOUNT}`,
        verdict(stranger.posts / stranger.sent < TARGET_WITHOUT_ACCOUNT),
      ],
    ];
  } finally {
    await service.close();
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
