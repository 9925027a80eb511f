import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { readConfig } from '../../src/config.js';
import { startService } from '../../src/server.js';
import { SANDBOX_WORKSPACE_ID } from '../../src/sandbox/seed.js';
import { insertEndpoint, setEndpointStatus, listLiveEndpoints } from '../../src/store/queries/webhook-endpoints.js';
const dataDir = await mkdtemp(join(tmpdir(), 'stmt16-'));
const service = await startService(readConfig({ PORT: '0', SVC_DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ?? '' }), pino({ level: 'silent' }));
const db = service.ctx.db;
for (let i = 0; i < 10; i++) await insertEndpoint(db, { id: `whk_s${i}`, workspace_id: SANDBOX_WORKSPACE_ID, url: `https://x.example/${i}`, events: [], status: 'active', consecutive_failures: 0, secret_enc: null, previous_secret_enc: null, rotating_until: null, created_at: i, updated_at: i, deleted_at: null });
const W = SANDBOX_WORKSPACE_ID;
const cases: Record<string, (i: number) => Promise<unknown>> = {
  bareUpdate: (i) => db.query('UPDATE webhook_endpoints SET status = $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2 RETURNING id', [W, 'whk_s9', i % 2 ? 'paused' : 'active', Date.now()]),
  setStatusToggle: (i) => setEndpointStatus(db, W, 'whk_s9', i % 2 ? 'paused' : 'active', Date.now()),
  setStatusNoNotify: () => setEndpointStatus(db, W, 'whk_s9', 'active', Date.now()),
  notifyOnly: (i) => db.query(`SELECT pg_notify('webhook_endpoint_stopped', 'whk_zz')`),
  updateAll: (i) => db.query('UPDATE webhook_endpoints SET status = $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2 RETURNING *', [W, 'whk_s9', i % 2 ? 'paused' : 'active', Date.now()]),
  selectLive: () => listLiveEndpoints(db, W),
  select1: () => db.query('SELECT 1'),
};
const results: Record<string, number[]> = {};
for (let round = 0; round < 7; round++) for (const [name, fn] of Object.entries(cases)) {
  const N = 150; const t = performance.now();
  for (let i = 0; i < N; i++) await fn(i);
  (results[name] ??= []).push((performance.now() - t) / N * 1000);
}
for (const [name, xs] of Object.entries(results)) { xs.sort((a, b) => a - b); console.log(name.padEnd(20), xs.map((x) => x.toFixed(0)).join(' '), ' median', xs[3]!.toFixed(0)); }
await service.close();
