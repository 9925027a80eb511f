import { openStore } from '../src/store/open.js';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertEndpoint, setEndpointStatus } from '../src/store/queries/webhook-endpoints.js';
import { seedWorkspace } from '../test/support/workspaces.js';
const dir = await mkdtemp(join(tmpdir(), 'plan-'));
const store = await openStore({ dataDir: dir });
const db = store.db;
const ws = await seedWorkspace(db);
for (let i = 0; i < 10; i++) await insertEndpoint(db, { id: `whk_p${i}`, workspace_id: ws, url: 'https://x.example/' + i, events: [], status: 'active', consecutive_failures: 0, secret_enc: null, previous_secret_enc: null, rotating_until: null, created_at: 1 + i, updated_at: 1, deleted_at: null });
async function time(label: string, fn: (i: number) => Promise<unknown>) {
  const res: number[] = [];
  for (let r = 0; r < 15; r++) { const t0 = performance.now(); for (let i = 0; i < 200; i++) await fn(i); res.push((performance.now() - t0) * 1000 / 200); }
  res.sort((a, b) => a - b);
  console.log(label.padEnd(30), 'best', res[0].toFixed(0), 'median', res[7].toFixed(0), 'µs');
}
const mode = process.argv[2];
if (mode) await db.query(`SET plan_cache_mode = ${mode}`);
for (let k = 0; k < 2; k++) {
  await time('bare UPDATE', (i) => db.query('UPDATE webhook_endpoints SET status = $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2 RETURNING id', [ws, 'whk_p9', i % 2 ? 'paused' : 'active', Date.now()]));
  await time('setEndpointStatus', (i) => setEndpointStatus(db, ws, 'whk_p9', i % 2 ? 'paused' : 'active', Date.now()));
  await time('list JSON', () => db.query(`SELECT 1`));
}
await store.close();
