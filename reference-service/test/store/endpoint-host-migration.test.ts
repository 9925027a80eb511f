import { destinationHost } from '@svc-kit/contract';
import { expect, it } from 'vitest';
import { loadMigrations, migrate } from '../../src/store/migrate.js';
import { openPglite } from '../../src/store/pglite.js';
import { seedWorkspace } from '../support/workspaces.js';

const URLS = [
  'https://Hooks.Example.COM:8443/a?b#c',
  'https://receiver.example.org./in',
  'https://xn--bcher-kva.example/hook',
  'http://localhost:3000/hooks',
  'http://127.0.0.1:8080/',
  'listen://svc-webhooks',
];

/** Endpoints made before migration 0022 get the host their deliveries are paced by, as the contract says. */
it('gives endpoints made before the pace by host the host the contract names', async () => {
  const db = await openPglite(undefined);
  try {
    const all = await loadMigrations();
    const at = all.findIndex((migration) => migration.name === '0022_delivery_pace_by_host.sql');
    await migrate(db, all.slice(0, at));
    const workspaceId = await seedWorkspace(db);
    for (const [i, url] of URLS.entries()) {
      // The row as the schema before 0022 has it, written without the current query.
      await db.query(
        `INSERT INTO webhook_endpoints (id, workspace_id, url, events, status, consecutive_failures, secret_enc,
           created_at, updated_at)
         VALUES ($1, $2, $3, '{}', 'active', 0, 'sealed', 1, 1)`,
        [`whk_${i}`, workspaceId, url],
      );
    }
    await migrate(db, all);
    const rows = await db.query<{ url: string; host: string | null }>(
      'SELECT url, host FROM webhook_endpoints ORDER BY id',
    );
    expect(rows.map((row) => row.host)).toEqual(URLS.map((url) => destinationHost(url) ?? null));
    expect(rows.map((row) => row.host)).toEqual([
      'hooks.example.com',
      'receiver.example.org',
      'xn--bcher-kva.example',
      null,
      null,
      null,
    ]);
  } finally {
    await db.close();
  }
});
