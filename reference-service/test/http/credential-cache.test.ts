import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { PERMISSIONS } from '@svc-kit/contract';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import {
  SANDBOX_IDENTITIES,
  SANDBOX_MEMBER_ID,
  SANDBOX_WORKSPACE_ID,
} from '../../src/features/sandbox/seed.js';
import { type RunningService, startService } from '../../src/server.js';
import type { Db } from '../../src/store/db.js';
import { revokeApiKey } from '../../src/store/queries/api-keys.js';
import { setWorkspaceFlag } from '../../src/store/queries/workspaces.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { createEmptyPostgres } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { initialisedDataDir } from '../support/pglite-snapshot.js';
import { insertSandboxKey } from '../support/sandbox-key.js';

const ROUNDS = 5;

async function listWebhooks(service: RunningService, key: string): Promise<number> {
  const response = await fetch(`${service.baseUrl}/v1/workspace/webhooks`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await response.arrayBuffer();
  return response.status;
}

async function setWebhookStatus(
  service: RunningService,
  key: string,
  id: string,
  status: 'active' | 'paused',
): Promise<number> {
  const response = await fetch(`${service.baseUrl}/v1/workspace/webhooks/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ status }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Runs `fn` with every statement `service` sends going through `around`, which runs it with `run`. */
async function throughDb(
  service: RunningService,
  around: (sql: string, run: () => Promise<object[]>) => Promise<object[]>,
  fn: () => Promise<unknown>,
): Promise<void> {
  const db = service.ctx.db;
  const query = <Row extends object>(sql: string, params?: readonly unknown[]) =>
    around(sql, () => db.query(sql, params)) as Promise<Row[]>;
  service.ctx.db = { ...db, query } satisfies Db;
  try {
    await fn();
  } finally {
    service.ctx.db = db;
  }
}

/** A fresh key of the sandbox owner, written straight to the store. */
const newKey = (service: RunningService, scopes?: readonly string[]) =>
  insertSandboxKey(service.ctx.db, scopes);

/**
 * PGlite holds keys in memory (one process); on PostgreSQL every call reads its key, so that two
 * instances agree at once. Each backend runs the same checks: `a` changes the store, `b` answers (two
 * instances on PostgreSQL).
 */
describe.each(['pglite', 'postgres'] as const)('API keys and revocation on %s', (backend) => {
  let a: RunningService;
  let b: RunningService;
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createEmptyPostgres>> | undefined;

  beforeAll(async () => {
    dataDir = await initialisedDataDir('svc-cache-');
    if (backend === 'pglite') {
      a = await startService(readConfig({ PORT: '0', SVC_DATA_DIR: dataDir }), pino({ level: 'silent' }));
      b = a;
      return;
    }
    database = await createEmptyPostgres();
    const config = readConfig({ PORT: '0', DATABASE_URL: database.url, SVC_DATA_DIR: dataDir });
    a = await startService(config, pino({ level: 'silent' }));
    b = await startService(config, pino({ level: 'silent' }));
  }, 120_000);

  afterAll(async () => {
    await a?.close();
    if (b !== a) await b?.close();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it(
    backend === 'pglite'
      ? 'answers a key seen before from memory, and refuses it on the very next call once revoked'
      : 'reads the key on every call, and refuses it on the very next call to either instance once revoked on one',
    async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const key = await newKey(a);
        const before = b.ctx.credentials!.stats();
        for (let i = 0; i < 3; i++) {
          expect(await listWebhooks(a, key.token)).toBe(200);
          expect(await listWebhooks(b, key.token)).toBe(200);
        }
        const after = b.ctx.credentials!.stats();
        if (backend === 'pglite') expect(after.hits).toBeGreaterThan(before.hits);
        else expect([after.hits, after.misses - before.misses]).toEqual([0, 3]);

        expect(await revokeApiKey(a.ctx.db, SANDBOX_WORKSPACE_ID, key.id, Date.now())).toBe(true);
        // No waiting: the very next call on either instance is refused.
        expect(await listWebhooks(b, key.token)).toBe(401);
        expect(await listWebhooks(a, key.token)).toBe(401);
      }
    },
  );

  it('sees a change of the member or of the workspace on the very next call', async () => {
    const key = await newKey(a);
    expect(await listWebhooks(b, key.token)).toBe(200);
    expect(await listWebhooks(b, key.token)).toBe(200);

    await a.ctx.db.query(`UPDATE members SET permissions = '{}' WHERE id = $1`, [SANDBOX_MEMBER_ID]);
    expect(await listWebhooks(b, key.token)).toBe(403);
    await a.ctx.db.query(`UPDATE members SET permissions = $2 WHERE id = $1`, [
      SANDBOX_MEMBER_ID,
      [...PERMISSIONS],
    ]);
    expect(await listWebhooks(b, key.token)).toBe(200);

    // The workspace row travels with the key: its webhooks flag is read from it.
    const enabled = async () => {
      const response = await fetch(`${b.baseUrl}/v1/workspace/webhooks`, {
        headers: { authorization: `Bearer ${key.token}` },
      });
      return ((await response.json()) as { enabled: boolean }).enabled;
    };
    expect(await enabled()).toBe(true);
    await setWorkspaceFlag(a.ctx.db, SANDBOX_WORKSPACE_ID, 'webhooks_enabled', false);
    expect(await enabled()).toBe(false);
    await setWorkspaceFlag(a.ctx.db, SANDBOX_WORKSPACE_ID, 'webhooks_enabled', true);
    expect(await enabled()).toBe(true);

    await a.ctx.db.query('DELETE FROM api_keys WHERE id = $1', [key.id]);
    expect(await listWebhooks(b, key.token)).toBe(401);
  });

  // PostgreSQL only: on PGlite one process holds the only connection, and a change is announced at commit.
  if (backend === 'postgres') {
    it('sees a member change that commits after a key created meanwhile was read (the change bumps no key row)', async () => {
      const change = new pg.Client({ connectionString: database!.url });
      await change.connect();
      try {
        // The member's change holds its row, not the keys': a key can be created and read meanwhile.
        await change.query('BEGIN');
        await change.query(`UPDATE members SET permissions = '{}' WHERE id = $1`, [SANDBOX_MEMBER_ID]);
        const key = await newKey(a);
        expect(await listWebhooks(b, key.token)).toBe(200);
        expect(await listWebhooks(b, key.token)).toBe(200);
        await change.query('COMMIT');
        expect(await listWebhooks(b, key.token)).toBe(403);
      } finally {
        await change.query('ROLLBACK').catch(() => {});
        await change.query(`UPDATE members SET permissions = $2 WHERE id = $1`, [
          SANDBOX_MEMBER_ID,
          [...PERMISSIONS],
        ]);
        await change.end();
      }
    });
  }

  it('writes no event for a key revoked after it was used (the trigger route reads it before writing)', async () => {
    const { endpoint, key } = await endpointAndKey('revoked-trigger');
    const trigger = async () => {
      const response = await fetch(`${b.baseUrl}/sandbox/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'integration.created' }),
      });
      await response.arrayBuffer();
      return response.status;
    };
    // Read through the endpoint's delivery rows: an event no endpoint takes is not stored.
    const events = async () =>
      (
        await a.ctx.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id WHERE d.endpoint_id = $1',
          [endpoint.id],
        )
      )[0]!.n;
    expect(await trigger()).toBe(201);
    expect(await trigger()).toBe(201);
    const before = await events();
    expect(before).toBe(2);
    expect(await revokeApiKey(a.ctx.db, SANDBOX_WORKSPACE_ID, key.id, Date.now())).toBe(true);
    expect(await trigger()).toBe(401);
    expect(await events()).toBe(before);
  });

  /** A live endpoint of the sandbox workspace and a fresh key of its owner. */
  const endpointAndKey = async (name: string) => ({
    endpoint: await seedActiveEndpoint(
      a.ctx.db,
      createSecretBox(randomBytes(32)),
      SANDBOX_WORKSPACE_ID,
      `https://hooks.example.com/${name}`,
    ),
    key: await newKey(a),
  });

  it('changes no endpoint for a key changed since its last call, and reads the key in one statement', async () => {
    const { endpoint, key } = await endpointAndKey('held-key');
    const setStatus = (status: 'active' | 'paused', id = endpoint.id) =>
      setWebhookStatus(b, key.token, id, status);
    const statusInStore = async () =>
      (
        await a.ctx.db.query<{ status: string }>('SELECT status FROM webhook_endpoints WHERE id = $1', [
          endpoint.id,
        ])
      )[0]!.status;
    expect(await setStatus('paused')).toBe(200);
    // PGlite holds the key: the change alone. PostgreSQL reads the key first, in one prepared statement.
    let statements = 0;
    await throughDb(
      b,
      (_sql, run) => {
        statements++;
        return run();
      },
      async () => expect(await setStatus('active')).toBe(200),
    );
    expect(statements).toBe(backend === 'pglite' ? 1 : 2);
    expect(await statusInStore()).toBe('active');
    expect(await setStatus('paused', 'whk_nosuchendpoint')).toBe(404);

    /** Refused as `status`, with the endpoint as it was. */
    const refusedWhenHeld = async (status: number) => {
      expect(await setStatus('paused')).toBe(status);
      expect(await statusInStore()).toBe('active');
    };
    const heldAgain = async () => {
      expect(await setStatus('active')).toBe(200);
      expect(await setStatus('active')).toBe(200);
    };
    // Permissions taken away, or the workspace suspended.
    await a.ctx.db.query(`UPDATE members SET permissions = '{}' WHERE id = $1`, [SANDBOX_MEMBER_ID]);
    try {
      await refusedWhenHeld(403);
    } finally {
      await a.ctx.db.query(`UPDATE members SET permissions = $2 WHERE id = $1`, [
        SANDBOX_MEMBER_ID,
        [...PERMISSIONS],
      ]);
    }
    await heldAgain();
    await setWorkspaceFlag(a.ctx.db, SANDBOX_WORKSPACE_ID, 'suspended', true);
    try {
      await refusedWhenHeld(403);
    } finally {
      await setWorkspaceFlag(a.ctx.db, SANDBOX_WORKSPACE_ID, 'suspended', false);
    }
    await heldAgain();

    // Revoked on the other instance: the very next call is refused, whatever it names.
    expect(await revokeApiKey(a.ctx.db, SANDBOX_WORKSPACE_ID, key.id, Date.now())).toBe(true);
    await refusedWhenHeld(401);
    expect(await setStatus('paused', 'whk_nosuchendpoint')).toBe(401);
  });

  it('never runs a status change twice when its one statement got no answer and the key changed meanwhile', async () => {
    const { endpoint, key } = await endpointAndKey('lost-answer');
    const setStatus = (status: 'active' | 'paused') => setWebhookStatus(b, key.token, endpoint.id, status);
    expect(await setStatus('active')).toBe(200);
    let changes = 0;
    // The status change is written, then its answer is lost; meanwhile the member is written again (a new
    // version of the member row, still allowed everything).
    await throughDb(
      b,
      async (sql, run) => {
        const rows = await run();
        if (!sql.includes('UPDATE webhook_endpoints') || ++changes > 1) return rows;
        await a.ctx.db.query('UPDATE members SET permissions = permissions WHERE id = $1', [
          SANDBOX_MEMBER_ID,
        ]);
        throw new Error('connection lost before the answer');
      },
      async () => expect(await setStatus('paused')).toBe(500),
    );
    expect(changes).toBe(1);
  });

  it('answers every read the same from a held key as from a fresh read, refusals included', async () => {
    const key = await newKey(a, PERMISSIONS);
    const { id: endpointId } = await seedActiveEndpoint(
      a.ctx.db,
      a.ctx.secretBox,
      SANDBOX_WORKSPACE_ID,
      'https://hooks.example.com/held',
    );
    const get = async (path: string) => {
      const response = await fetch(`${b.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${key.token}` },
      });
      // The request id differs from call to call; everything else must not.
      return { status: response.status, body: (await response.text()).replace(/req_[0-9a-f]+/, 'req_') };
    };
    const paths = [
      '/v1/workspace/webhooks',
      `/v1/identities/${SANDBOX_IDENTITIES[0]}/contacts`,
      `/v1/identities/${SANDBOX_IDENTITIES[0]}/contacts?status=blocked`,
      '/v1/identities/no-such-identity/contacts',
      `/v1/workspace/webhooks/${endpointId}/deliveries?limit=5`,
      '/v1/workspace/webhooks/whk_nosuchendpoint/deliveries?limit=5',
    ];
    const first = await Promise.all(paths.map(get));
    expect(first.map((answer) => answer.status)).toEqual([200, 200, 200, 404, 200, 404]);
    const hitsBefore = b.ctx.credentials!.stats().hits;
    expect(await Promise.all(paths.map(get))).toEqual(first);
    if (backend === 'pglite') expect(b.ctx.credentials!.stats().hits).toBeGreaterThan(hitsBefore);

    // A refusal of the call itself (404) is never answered to a key revoked meanwhile.
    expect(await revokeApiKey(a.ctx.db, SANDBOX_WORKSPACE_ID, key.id, Date.now())).toBe(true);
    for (const answer of await Promise.all(paths.map(get))) expect(answer.status).toBe(401);
  });
});
