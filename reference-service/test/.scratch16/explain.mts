import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { readConfig } from '../../src/config.js';
import { startService } from '../../src/server.js';
import { SANDBOX_WORKSPACE_ID } from '../../src/sandbox/seed.js';
import { insertEndpoint, ENDPOINT_STOPPED_CHANNEL } from '../../src/store/queries/webhook-endpoints.js';
const dataDir = await mkdtemp(join(tmpdir(), 'stmt16-'));
const service = await startService(readConfig({ PORT: '0', SVC_DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ?? '' }), pino({ level: 'silent' }));
const db = service.ctx.db;
for (let i = 0; i < 10; i++) await insertEndpoint(db, { id: `whk_s${i}`, workspace_id: SANDBOX_WORKSPACE_ID, url: `https://x.example/${i}`, events: [], status: 'active', consecutive_failures: 0, secret_enc: null, previous_secret_enc: null, rotating_until: null, created_at: i, updated_at: i, deleted_at: null });
const sql = `EXPLAIN (ANALYZE, BUFFERS) WITH changed AS (
       UPDATE webhook_endpoints
          SET status = $3,
              consecutive_failures = CASE WHEN $3 = 'active' THEN 0 ELSE consecutive_failures END,
              updated_at = $4
        WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL
        RETURNING *
     ),
     announced AS (
       SELECT true AS notified, pg_notify($5, changed.id) FROM changed WHERE $3 = 'paused'
     )
     SELECT changed.*, true AS changed FROM changed
      WHERE (SELECT count(*) FROM announced WHERE notified) >= 0
     UNION ALL
     SELECT e.*, false AS changed FROM webhook_endpoints e
      WHERE e.workspace_id = $1 AND e.deleted_at IS NULL AND e.id <> $2
        AND EXISTS (SELECT 1 FROM changed)
     ORDER BY created_at, id`;
for (let i = 0; i < 200; i++) await db.query(sql, [SANDBOX_WORKSPACE_ID, 'whk_s9', i % 2 ? 'paused' : 'active', Date.now(), ENDPOINT_STOPPED_CHANNEL]);
const rows = await db.query<{ 'QUERY PLAN': string }>(sql, [SANDBOX_WORKSPACE_ID, 'whk_s9', 'paused', Date.now(), ENDPOINT_STOPPED_CHANNEL]);
console.log(rows.map((r) => r['QUERY PLAN']).join('\n'));
const r2 = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) UPDATE webhook_endpoints SET status = $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2 RETURNING id`, [SANDBOX_WORKSPACE_ID, 'whk_s9', 'active', Date.now()]);
console.log(r2.map((r) => r['QUERY PLAN']).join('\n'));
const idx = await db.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename = 'webhook_endpoints'`);
console.log(idx.map((r) => r.indexdef).join('\n'));
await service.close();
