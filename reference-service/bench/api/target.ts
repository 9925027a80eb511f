/**
 * The process the API benchmark loads (bench/api/run.ts spawns it, so that the load generator never shares
 * this event loop): the real service, started as `npm start` starts it (its own settings, its delivery
 * worker, its request logs to stdout), on PGlite in a temporary data dir or on the PostgreSQL database in
 * DATABASE_URL; and beside it, on a second port, the anchors the service is compared with (floors.ts: bare
 * Fastify routes with no query, with one query of the same rows, and with one UPDATE, each also after the
 * service's key lookup), on the same database connection (the `pg` pool; the PGlite thread).
 *
 * Prints one JSON line on stdout once both listen: `{ ready: { service, anchors, apiKey, … } }`. The
 * service's own log lines go to stdout too and are skipped by the parent.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { newWebhookEndpoint } from '@svc-kit/contract';
import Fastify from 'fastify';
import { readConfig } from '../../src/config.js';
import { SANDBOX_IDENTITIES, SANDBOX_WORKSPACE_ID } from '../../src/features/sandbox/seed.js';
import { createServiceLogger } from '../../src/http/logger.js';
import { startService } from '../../src/server.js';
import type { CredentialCache } from '../../src/store/credential-cache.js';
import type { Db } from '../../src/store/db.js';
import { saveContact } from '../../src/store/queries/contacts.js';
import { listIdentities } from '../../src/store/queries/identities.js';
import { insertEndpoint, newEndpointRow } from '../../src/store/queries/webhook-endpoints.js';
import type { SecretBox } from '../../src/store/secret-box.js';
import { insertDelivery } from '../../test/support/endpoints.js';
import { addAnchors } from './floors.js';

const ENDPOINTS = 10;
const ROWS = 100;

/** Rows for the read routes: ten endpoints (never dialled: no event is emitted), 100 deliveries, 100 contacts. */
async function seedRows(db: Db, identityId: string): Promise<{ endpointId: string; toggleId: string }> {
  const now = Date.now() - 60_000;
  const endpointIds: string[] = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    const id = `whk_bench${String(i).padStart(4, '0')}`;
    endpointIds.push(id);
    await insertEndpoint(
      db,
      newEndpointRow(
        SANDBOX_WORKSPACE_ID,
        newWebhookEndpoint({ id, url: `https://hooks.example.com/bench/${i}`, events: [] }, now + i),
        null,
      ),
    );
  }
  const endpointId = endpointIds[0]!;
  await db.transaction(async (tx) => {
    for (let i = 0; i < ROWS; i++) {
      await insertDelivery(tx, {
        workspace_id: SANDBOX_WORKSPACE_ID,
        endpoint_id: endpointId,
        event_id: `evt_bench${i}`,
        event_type: 'integration.created',
        attempt: 1,
        status: 'delivered',
        http_status: 200,
        latency_ms: 12,
        response_excerpt: 'ok',
        next_attempt_at: null,
        created_at: now + i,
      });
      const fingerprint = `sha256:${randomBytes(32).toString('hex')}`;
      await saveContact(tx, {
        identity_id: identityId,
        fingerprint,
        workspace_id: SANDBOX_WORKSPACE_ID,
        display_name: `Bench contact ${i}`,
        endpoint: `https://peer${i}.example.com/peer`,
        public_key: randomBytes(32).toString('base64url'),
        card: 'bench',
        card_expires_at: now + 86_400_000,
        status: 'active',
        blocked_kind: null,
        preset: 'default',
        permissions: [],
        trust_flag: 'messages_only',
        petname: '',
        request_note: null,
        last_seen_at: now,
        acceptance_unheard_since: null,
        created_at: now + i,
        updated_at: now + i,
      });
    }
  });
  return { endpointId, toggleId: endpointIds[ENDPOINTS - 1]! };
}

/** The anchors (floors.ts) and the other benchmarks' probes, on a port of their own. */
async function startAnchors(
  db: Db,
  secretBox: SecretBox,
  credentials: CredentialCache | undefined,
  ids: { endpointId: string; toggleId: string; identityId: string },
) {
  const app = Fastify({ logger: false });
  await addAnchors(app, db, credentials, ids);
  // Memory and event-loop delay (p50 / p99 / max in ms since the last read) of this process.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  // CPU time of this whole process (every thread: the service, its PGlite thread, the anchors), in µs.
  app.get('/cpu', async () => {
    const { user, system } = process.cpuUsage();
    return { micros: user + system };
  });
  app.get('/rss', async () => {
    const delay = {
      loopDelayP50: loopDelay.percentile(50) / 1e6,
      loopDelayP99: loopDelay.percentile(99) / 1e6,
      loopDelayMax: loopDelay.max / 1e6,
    };
    loopDelay.reset();
    return { ...process.memoryUsage(), ...delay };
  });
  // For the event intake bench: the read routes' endpoints paused, one live endpoint at the given receiver.
  app.post('/prepare-events', async (request) => {
    const { url } = request.body as { url: string };
    await db.query('CREATE TABLE IF NOT EXISTS bench_commits (id bigserial PRIMARY KEY, at bigint NOT NULL)');
    await db.query(`UPDATE webhook_endpoints SET status = 'paused' WHERE workspace_id = $1`, [
      SANDBOX_WORKSPACE_ID,
    ]);
    const at = Date.now() - 1_000;
    await insertEndpoint(
      db,
      newEndpointRow(
        SANDBOX_WORKSPACE_ID,
        newWebhookEndpoint({ id: 'whk_benchreceiver', url, events: [] }, at),
        secretBox.seal('whsec_bench', 'whk_benchreceiver'),
      ),
    );
    return { ok: true };
  });
  // The event intake's floor: one committed INSERT per request, on the same connection(s) as the service.
  app.post('/commit', async () => {
    await db.query('INSERT INTO bench_commits (at) VALUES ($1)', [Date.now()]);
    return { ok: true };
  });
  // PostgreSQL's count of WAL flushes (each a wait on the disk) so far; null on PGlite.
  app.get('/wal-syncs', async () => {
    if (db.kind !== 'postgres') return { syncs: null };
    const [row] = await db.query<{ syncs: string }>('SELECT wal_sync::text AS syncs FROM pg_stat_wal');
    return { syncs: Number(row?.syncs ?? 0) };
  });
  // The soak's final check: the outbox by status, and which events were logged delivered.
  app.get('/soak-check', async () => {
    const byStatus = await db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = 'whk_benchreceiver' GROUP BY status`,
    );
    const delivered = await db.query<{ event_id: string }>(
      `SELECT event_id FROM webhook_deliveries WHERE endpoint_id = 'whk_benchreceiver' AND status = 'delivered'`,
    );
    const [events] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM events');
    const [rows] = await db.query<{ rows: number; distinct_events: number }>(
      `SELECT count(*)::int AS rows, count(DISTINCT event_id)::int AS distinct_events
         FROM webhook_deliveries WHERE endpoint_id = 'whk_benchreceiver'`,
    );
    return {
      byStatus: Object.fromEntries(byStatus.map((row) => [row.status, row.n])),
      delivered: delivered.map((row) => row.event_id),
      events: events?.n ?? 0,
      rows: rows?.rows ?? 0,
      distinctEvents: rows?.distinct_events ?? 0,
    };
  });
  app.get('/outbox', async () => {
    const rows = await db.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status',
    );
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  });
  return app.listen({ host: '127.0.0.1', port: 0 });
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-api-'));
  const config = readConfig({
    ...process.env,
    PORT: '0',
    SVC_DATA_DIR: dataDir,
    NODE_ENV: 'development',
    // The benchmark floods one workspace on purpose: the request budget would answer most of it 429.
    // The isolation bench's read flood sets it, to measure the budget itself.
    SVC_WORKSPACE_REQUEST_RATE: process.env.BENCH_WORKSPACE_REQUEST_RATE ?? '0',
  });
  const logger = createServiceLogger(config.logLevel);
  const service = await startService(config, logger);
  if (!service.seed?.seeded) throw new Error('the benchmark needs a fresh store');
  const identity = (await listIdentities(service.ctx.db, SANDBOX_WORKSPACE_ID)).find(
    (row) => row.slug === SANDBOX_IDENTITIES[0],
  )!;
  const ids = { ...(await seedRows(service.ctx.db, identity.id)), identityId: identity.id };
  const anchors = await startAnchors(service.ctx.db, service.ctx.secretBox, service.ctx.credentials, ids);
  const stop = async () => {
    await service.close();
    await rm(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.stdout.write(
    `${JSON.stringify({
      ready: {
        service: service.baseUrl,
        anchors,
        apiKey: service.seed.apiKey,
        endpointId: ids.endpointId,
        toggleId: ids.toggleId,
        identity: SANDBOX_IDENTITIES[0],
        backend: service.ctx.db.kind,
      },
    })}\n`,
  );
}

main().catch((error: unknown) => {
  console.error('benchmark target failed:', error);
  process.exit(1);
});
