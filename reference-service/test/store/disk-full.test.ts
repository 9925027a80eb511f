import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { statfsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession } from '../../src/features/accounts/session.js';
import { sendAdminCommand } from '../../src/features/sandbox/admin-socket.js';
import { SANDBOX_MEMBER_ID } from '../../src/features/sandbox/seed.js';
import { SESSION_COOKIE } from '../../src/http/principal.js';
import { DatabaseUnavailableError } from '../../src/store/db.js';
import { openStore } from '../../src/store/open.js';
import { openPglite } from '../../src/store/pglite.js';
import { POSTGRES_ADMIN_URL } from '../support/backends.js';
import { testContext } from '../support/harness.js';
import { initialisedDataDir } from '../support/pglite-snapshot.js';
import { buildEntryPoint, type ServiceProcess, spawnService } from '../support/service-process.js';
import { until } from '../support/until.js';

/**
 * The database's disk fills up under the running service, then space comes back: every answer meanwhile
 * is a success or 503 `service_unavailable` with `Retry-After`, and the service serves again without a
 * restart. The small filesystem is a real one (tmpfs, mounted here as root): PGlite's data dir on it, or
 * a PostgreSQL tablespace holding the test database (its write-ahead log stays on the server's disk, so
 * there the data files are what cannot grow).
 */

const mount = (dir: string, size: string, owner?: string) =>
  execFileSync('mount', [
    '-t',
    'tmpfs',
    '-o',
    `size=${size},mode=0700${owner ? `,uid=${owner}` : ''}`,
    'tmpfs',
    dir,
  ]);

function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir]);
  } catch {
    execFileSync('umount', ['-l', dir]);
  }
}

/** Fills `dir`'s filesystem until `leave` bytes are left, with a file removed to give the space back. */
async function fill(dir: string, leave: number): Promise<() => Promise<void>> {
  const path = join(dir, 'filler');
  const file = await open(path, 'w');
  const chunk = Buffer.alloc(1024 * 1024);
  try {
    for (;;) {
      const { bavail, bsize } = statfsSync(dir);
      const room = bavail * bsize - leave;
      if (room <= 0) break;
      await file.write(chunk, 0, Math.min(chunk.length, room));
    }
  } finally {
    await file.close();
  }
  return () => rm(path, { force: true });
}

interface Backend {
  name: 'pglite' | 'postgres';
  /** Starts the service on a database whose files live on the small filesystem `dir`. */
  start(
    dir: string,
    entry: string,
  ): Promise<{ service: ServiceProcess; eventIds(): Promise<Set<string>>; ownerCookie(): Promise<string> }>;
  cleanUp(): Promise<void>;
}

const pgliteBackend = (): Backend => {
  let dataDir = '';
  let service: ServiceProcess | undefined;
  return {
    name: 'pglite',
    async start(dir, entry) {
      mount(dir, '72m');
      const template = await initialisedDataDir('svc-disk-full-');
      dataDir = join(dir, 'data');
      await mkdir(dataDir, { mode: 0o700 });
      await cp(join(template, 'pglite'), join(dataDir, 'pglite'), { recursive: true });
      await rm(template, { recursive: true, force: true });
      service = spawnService(entry, { SVC_DATA_DIR: dataDir, SVC_PORTAL_DIR: join(dir, 'none') });
      return {
        service,
        // The sandbox's admin command, over the running service's socket (the data dir is its alone).
        async ownerCookie() {
          const answer = await sendAdminCommand(dataDir, 'session', []);
          return /Cookie: (\S+)/.exec(answer?.text ?? '')![1]!;
        },
        async eventIds() {
          // The data dir has one owner at a time: the service is stopped before it is read.
          service!.child.kill('SIGTERM');
          await service!.exited;
          const db = await openPglite(join(dataDir, 'pglite'));
          try {
            return new Set((await db.query<{ id: string }>('SELECT id FROM events')).map((row) => row.id));
          } finally {
            await db.close();
          }
        },
      };
    },
    async cleanUp() {
      service?.child.kill('SIGTERM');
      await service?.exited;
    },
  };
};

const postgresBackend = (): Backend => {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  let service: ServiceProcess | undefined;
  const admin = async <T>(fn: (client: pg.Client) => Promise<T>) => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  return {
    name: 'postgres',
    async start(dir, entry) {
      mount(dir, '24m', execFileSync('id', ['-u', 'postgres']).toString().trim());
      await admin(async (client) => {
        await client.query(`CREATE TABLESPACE ${name} LOCATION '${dir}'`);
        await client.query(`CREATE DATABASE ${name} TABLESPACE ${name}`);
      });
      const url = new URL(POSTGRES_ADMIN_URL);
      url.pathname = `/${name}`;
      service = spawnService(entry, { DATABASE_URL: url.href, SVC_PORTAL_DIR: join(dir, 'none') });
      return {
        service,
        async ownerCookie() {
          const store = await openStore({ databaseUrl: url.href, dataDir: dir });
          try {
            const { token } = await openSession(testContext(store), SANDBOX_MEMBER_ID, true);
            return `${SESSION_COOKIE}=${token}`;
          } finally {
            await store.close();
          }
        },
        async eventIds() {
          const client = new pg.Client({ connectionString: url.href });
          await client.connect();
          try {
            return new Set(
              (await client.query<{ id: string }>('SELECT id FROM events')).rows.map((row) => row.id),
            );
          } finally {
            await client.end();
          }
        },
      };
    },
    async cleanUp() {
      service?.child.kill('SIGTERM');
      await service?.exited;
      await admin(async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.query(`DROP TABLESPACE IF EXISTS ${name}`);
      });
    },
  };
};

describe.each([pgliteBackend(), postgresBackend()])('a full disk under the service on $name', (backend) => {
  let entry: Awaited<ReturnType<typeof buildEntryPoint>>;
  let dir: string;
  let mounted = false;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.end('ok'));
  });
  let receiverPort = 0;

  beforeAll(async () => {
    entry = await buildEntryPoint();
    dir = await mkdtemp(join(tmpdir(), 'svc-small-fs-'));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverPort = (receiver.address() as AddressInfo).port;
  }, 120_000);
  afterAll(async () => {
    await backend.cleanUp();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    if (mounted) unmount(dir);
    await rm(dir, { recursive: true, force: true });
    await entry?.remove();
  }, 60_000);

  it('answers 503 with Retry-After while it cannot write, never 500, and recovers by itself', async () => {
    const started = await backend.start(dir, entry.main);
    mounted = true;
    const baseUrl = await started.service.ready(120_000);
    await started.service.printed('API key (all scopes):');
    const key = /API key \(all scopes\):\s+(svc_\S+)/.exec(started.service.output())![1]!;
    // Only an event some endpoint takes is stored: one that always answers 200 (so never paused) takes
    // them all, and each write below is an event and its delivery row.
    const created = await fetch(`${baseUrl}/v1/workspace/webhooks`, {
      method: 'POST',
      headers: {
        cookie: await started.ownerCookie(),
        origin: new URL(baseUrl).origin,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ url: `http://localhost:${receiverPort}/events`, events: [] }),
    });
    expect(created.status).toBe(201);
    let version = 0;
    const write = async () => {
      const response = await fetch(`${baseUrl}/sandbox/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'integration.exposure_updated',
          data: { integration: 'x'.repeat(60), version: ++version },
        }),
      });
      const body = (await response.json()) as { event?: { id: string }; error?: { code: string } };
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
    };
    const written = new Set<string>();
    const statuses = new Map<number, number>();
    const record = (answer: Awaited<ReturnType<typeof write>>) => {
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 201) written.add(answer.body.event!.id);
      else {
        expect(answer.status).toBe(503);
        expect(answer.body.error?.code).toBe('service_unavailable');
        expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      }
    };
    record(await write());
    expect(statuses.get(201)).toBe(1);

    const giveBack = await fill(dir, 256 * 1024);
    // Writes from four callers at once until the database has refused plenty of them.
    const deadline = Date.now() + 90_000;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while ((statuses.get(503) ?? 0) < 40 && Date.now() < deadline) record(await write());
      }),
    );
    expect(statuses.get(503) ?? 0).toBeGreaterThanOrEqual(40);
    expect([...statuses.keys()].sort()).toEqual([201, 503]);
    // The process itself answers throughout; readiness says the database does not serve.
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);

    await giveBack();
    await until(async () => {
      const answer = await write();
      record(answer);
      return answer.status === 201;
    }, 30_000);
    for (let i = 0; i < 20; i++) {
      const answer = await write();
      record(answer);
      expect(answer.status).toBe(201);
    }
    await until(async () => (await fetch(`${baseUrl}/readyz`)).status === 200, 10_000);
    expect(started.service.output()).not.toMatch(/"msg":"request failed"/);

    // Every event answered 201 was kept.
    const kept = await started.eventIds();
    expect([...written].filter((id) => !kept.has(id))).toEqual([]);
  }, 240_000);
});

describe('the embedded database whose write-ahead log cannot grow', () => {
  let dir: string;
  let mounted = false;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-small-wal-'));
  });
  afterAll(async () => {
    if (mounted) unmount(dir);
    await rm(dir, { recursive: true, force: true });
  });

  it('stops serving with 503s instead of staying inside a transaction, and opens again once there is room', async () => {
    mount(dir, '72m');
    mounted = true;
    const template = await initialisedDataDir('svc-small-wal-');
    await cp(join(template, 'pglite'), join(dir, 'pglite'), { recursive: true });
    await rm(template, { recursive: true, force: true });
    const db = await openPglite(join(dir, 'pglite'));
    try {
      // Rows with room beside them: updates then need no new data pages, only log, until a new log
      // segment must be made and cannot be.
      await db.exec(
        'CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL) WITH (fillfactor = 40); INSERT INTO counters SELECT g, 0 FROM generate_series(1, 20000) g; CHECKPOINT',
      );
      const giveBack = await fill(dir, 256 * 1024);
      let committed = 0;
      let refusal: unknown;
      for (let i = 0; i < 5000 && refusal === undefined; i++) {
        try {
          await db.transaction((tx) =>
            tx.query('UPDATE counters SET n = n + 1 WHERE id % 20 = $1', [i % 20]),
          );
          committed++;
        } catch (error) {
          refusal = error;
        }
      }
      expect(refusal).toBeInstanceOf(DatabaseUnavailableError);
      // Reads fail the same way while the disk is full (the database is opened again and cannot start).
      await expect(db.query('SELECT 1')).rejects.toBeInstanceOf(DatabaseUnavailableError);

      await giveBack();
      await until(async () => {
        try {
          await db.query('SELECT 1');
          return true;
        } catch (error) {
          expect(error).toBeInstanceOf(DatabaseUnavailableError);
          return false;
        }
      }, 30_000);
      // What committed is there, what was refused is not, and writes work again.
      const [row] = await db.query<{ total: number }>('SELECT sum(n)::int AS total FROM counters');
      expect(row!.total).toBe(committed * 1000);
      await db.transaction((tx) => tx.query('UPDATE counters SET n = n + 1 WHERE id = 1'));
    } finally {
      await db.close();
    }
  }, 120_000);
});
