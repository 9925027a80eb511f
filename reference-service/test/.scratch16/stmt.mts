import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { readConfig } from '../../src/config.js';
import { startService } from '../../src/server.js';
import { SANDBOX_WORKSPACE_ID } from '../../src/sandbox/seed.js';
import { insertEndpoint, setEndpointStatus } from '../../src/store/queries/webhook-endpoints.js';

const dataDir = await mkdtemp(join(tmpdir(), 'stmt16-'));
const service = await startService(readConfig({ PORT: '0', SVC_DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ?? '' }), pino({ level: 'silent' }));
const db = service.ctx.db;
for (let i = 0; i < 10; i++) await insertEndpoint(db, { id: `whk_s${i}`, workspace_id: SANDBOX_WORKSPACE_ID, url: `https://x.example/${i}`, events: [], status: 'active', consecutive_failures: 0, secret_enc: null, previous_secret_enc: null, rotating_until: null, created_at: i, updated_at: i, deleted_at: null });
const N = 400;
const cases: [string, (i: number) => Promise<unknown>][] = [
  ['bare UPDATE', (i) => db.query('UPDATE webhook_endpoints SET status = $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2 RETURNING id', [SANDBOX_WORKSPACE_ID, 'whk_s9', i % 2 ? 'paused' : 'active', Date.now()])],
  ['setEndpointStatus', (i) => setEndpointStatus(db, SANDBOX_WORKSPACE_ID, 'whk_s9', i % 2 ? 'paused' : 'active', Date.now())],
  ['setEndpointStatus active only', (i) => setEndpointStatus(db, SANDBOX_WORKSPACE_ID, 'whk_s9', 'active', Date.now())],
  ['UPDATE + pg_notify', (i) => db.query(`WITH c AS (UPDATE webhook_endpoints SET status = $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2 RETURNING id) SELECT pg_notify('x', id) FROM c`, [SANDBOX_WORKSPACE_ID, 'whk_s9', i % 2 ? 'paused' : 'active', Date.now()])],
  ['SELECT live endpoints', () => db.query('SELECT * FROM webhook_endpoints WHERE workspace_id = $1 AND deleted_at IS NULL ORDER BY created_at, id', [SANDBOX_WORKSPACE_ID])],
];
for (let round = 0; round < 2; round++) for (const [name, fn] of cases) {
  const t = performance.now();
  // 10 in flight like the bench
  let next = 0;
  await Promise.all(Array.from({ length: 10 }, async () => { while (next < N) await fn(next++); }));
  console.log(name.padEnd(32), ((performance.now() - t) / N * 1000).toFixed(0), 'µs/statement');
}
await service.close();
