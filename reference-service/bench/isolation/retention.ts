/**
 * Storage and a read's latency as old data keeps arriving and retention removes it (issue 40, item 8):
 * rounds of 20,000 events with a delivery each, written as if 40 days old, then one retention pass (on
 * PGlite with its vacuum). What the two tables take, and the p50 of reading an endpoint's delivery log
 * (100 records, over HTTP), after the last round beside after the second (the first leaves the files at the
 * size one round needs): flat means within 10 % and 50 %.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newWebhookEndpoint } from '@svc-kit/contract';
import pino from 'pino';
import { newId } from '../../src/domain/ids.js';
import { DEFAULT_RETENTION, startRetention } from '../../src/ops/retention.js';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { insertEndpoint, newEndpointRow } from '../../src/store/queries/webhook-endpoints.js';
import { createTenant, startTestService } from '../../test/support/harness.js';
import type { BenchEnv } from '../support/backends.js';
import { type Row, verdict } from '../support/table.js';

const DAY = 24 * 60 * 60 * 1000;
const OLD_PER_ROUND = 20_000;
const FRESH = 2_000;
const READS = 200;
const STORAGE_TARGET = 1.1;
const LATENCY_TARGET = 1.5;

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;

/** `count` events of the workspace and one pending delivery each to `endpointId`, written at `at` on. */
async function writeLog(
  store: OpenedStore,
  workspaceId: string,
  endpointId: string,
  count: number,
  at: number,
) {
  const tag = newId('r');
  await store.db.query(
    `INSERT INTO events (id, workspace_id, identity, type, body, created_at)
     SELECT $4 || '_' || g, $1, 'keeper', 'integration.created', '{"type":"integration.created"}', $2::bigint + g
       FROM generate_series(1, $3::int) g`,
    [workspaceId, at, count, tag],
  );
  await store.db.query(
    `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status, created_at)
     SELECT webhook_delivery_id(id, $1), workspace_id, $1, id, type, 1, 'pending', created_at
       FROM events WHERE id LIKE $2 || '\\_%'`,
    [endpointId, tag],
  );
}

async function tablesBytes(store: OpenedStore): Promise<number> {
  const [row] = await store.db.query<{ bytes: number }>(
    `SELECT (pg_total_relation_size('events') + pg_total_relation_size('webhook_deliveries'))::float8 AS bytes`,
  );
  return row!.bytes;
}

export async function runRetentionBench(env: BenchEnv, label: string, rounds = 5): Promise<Row[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-retention-'));
  const store = await openStore({ databaseUrl: env.DATABASE_URL || undefined, dataDir });
  // Without the request budget: the bench reads the log as often as it needs to time it.
  const service = await startTestService(store, { requests: undefined });
  try {
    const tenant = await createTenant(service.ctx, { webhooksEnabled: true });
    const endpointId = newId('whk');
    const longAgo = Date.now() - 400 * DAY;
    await insertEndpoint(
      store.db,
      newEndpointRow(
        tenant.workspaceId,
        newWebhookEndpoint(
          { id: endpointId, url: 'https://hooks.example.com/retention', events: [], status: 'paused' },
          longAgo,
        ),
        service.ctx.secretBox.seal('whsec_bench', endpointId),
      ),
    );
    await writeLog(store, tenant.workspaceId, endpointId, FRESH, Date.now() - DAY);
    const retention = startRetention(store.db, {
      now: () => Date.now(),
      settings: { ...DEFAULT_RETENTION, everyMs: 24 * 3_600_000 },
      log: pino({ level: 'silent' }),
    });
    const readP50 = async () => {
      const times: number[] = [];
      for (let i = 0; i < READS; i++) {
        const started = performance.now();
        const answer = await fetch(
          `${service.baseUrl}/v1/workspace/webhooks/${endpointId}/deliveries?limit=100`,
          {
            headers: { authorization: `Bearer ${tenant.key}` },
          },
        );
        await answer.arrayBuffer();
        if (answer.status !== 200) throw new Error(`the log answered ${answer.status}`);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)]!;
    };
    const after: { bytes: number; p50: number; removed: number }[] = [];
    for (let round = 0; round < rounds; round++) {
      await writeLog(store, tenant.workspaceId, endpointId, OLD_PER_ROUND, Date.now() - 40 * DAY);
      const removed = await retention.runOnce();
      after.push({
        bytes: await tablesBytes(store),
        p50: await readP50(),
        removed: (removed.webhook_deliveries ?? 0) + (removed.events ?? 0),
      });
    }
    await retention.close();
    // Pass 1 leaves the files at the size one round needs; from pass 2 on, space is reused.
    const first = after[1]!;
    const last = after.at(-1)!;
    const allRemoved = after.every((one) => one.removed === 2 * OLD_PER_ROUND);
    return [
      [
        `${label}: rows removed per pass (${OLD_PER_ROUND.toLocaleString('en')} old events and deliveries)`,
        after.map((one) => one.removed.toLocaleString('en')).join(', '),
        'all old rows',
        verdict(allRemoved),
      ],
      [
        `${label}: events and delivery log, after pass 2 → ${rounds}`,
        `${mb(first.bytes)} → ${mb(last.bytes)} (×${(last.bytes / first.bytes).toFixed(2)})`,
        `≤ ×${STORAGE_TARGET}`,
        verdict(last.bytes <= first.bytes * STORAGE_TARGET),
      ],
      [
        `${label}: delivery log read p50 (100 records), after pass 2 → ${rounds}`,
        `${first.p50.toFixed(2)} → ${last.p50.toFixed(2)} ms (×${(last.p50 / first.p50).toFixed(2)})`,
        `≤ ×${LATENCY_TARGET}`,
        verdict(last.p50 <= first.p50 * LATENCY_TARGET),
      ],
    ];
  } finally {
    await service.close();
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
