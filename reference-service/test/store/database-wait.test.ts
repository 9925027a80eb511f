// An API request waits a bounded time for a PostgreSQL connection and is then answered 503; background work
// waits as long as it takes. A statement the server cuts short (an operator's lock or statement timeout) is
// answered 503 too. Real PostgreSQL, a real TCP proxy in front of it, the real composition root.
import { rm } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { SANDBOX_WORKSPACE_ID } from '../../src/features/sandbox/seed.js';
import { type RunningService, startService } from '../../src/server.js';
import { DatabaseUnavailableError, type Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { openPostgres } from '../../src/store/postgres.js';
import { createEmptyPostgres } from '../support/backends.js';
import { databaseFingerprint } from '../support/db-dump.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { holdEveryConnection } from '../support/hold-connections.js';
import { lineSink } from '../support/line-sink.js';
import { initialisedDataDir } from '../support/pglite-snapshot.js';
import { insertSandboxKey } from '../support/sandbox-key.js';

/** A TCP proxy to PostgreSQL that can be shut: new connections refused, open ones cut. */
async function startProxy(target: string): Promise<{ url: string; shut(): Promise<void> }> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  };
  const server = createServer((client) => {
    const server = connect(Number(upstream.port || 5432), upstream.hostname);
    track(client);
    track(server);
    client.pipe(server).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(target);
  proxied.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: proxied.href,
    shut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

async function timed<T>(work: Promise<T>): Promise<{ ms: number; outcome: T | unknown }> {
  const started = performance.now();
  const outcome = await work.catch((error: unknown) => error);
  return { ms: performance.now() - started, outcome };
}

describe('waiting for a PostgreSQL connection', () => {
  let database: Awaited<ReturnType<typeof createEmptyPostgres>>;
  let db: Db;

  beforeAll(async () => {
    database = await createEmptyPostgres();
    db = await openPostgres(database.url);
    await migrate(db);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('gives up after the limit with a typed error, runs nothing, and returns the late connection', async () => {
    const limited = db.withWaitLimit(200);
    const giveBack = await holdEveryConnection(db);
    let ranInside = false;
    const query = await timed(limited.query('SELECT 1'));
    const transaction = await timed(limited.transaction(async () => (ranInside = true)));
    // Without a limit the same call waits for the connection instead.
    const patient = db.query<{ one: number }>('SELECT 1 AS one');
    await giveBack();
    for (const { ms, outcome } of [query, transaction]) {
      expect(outcome).toBeInstanceOf(DatabaseUnavailableError);
      expect(ms).toBeGreaterThanOrEqual(190);
      expect(ms).toBeLessThan(2_000);
    }
    expect(ranInside).toBe(false);
    expect(await patient).toEqual([{ one: 1 }]);
    // The two connections handed over after their callers gave up went back to the pool.
    for (let waited = 0; db.pressure().busy > 0 && waited < 2_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(db.pressure()).toEqual({ waiting: 0, busy: 0 });
    expect(await limited.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('keeps a connection the server only refused a statement on, and drops one the server ended', async () => {
    // The requests' view, which acquires its connections itself (without a limit, pg's pool.query drops a
    // connection on any error).
    const api = db.withWaitLimit(5_000);
    const pid = async () => (await api.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;
    const before = await pid();
    await expect(api.query('SELECT 1 / 0')).rejects.toThrow(/division by zero/);
    expect(await pid()).toBe(before);
    await expect(api.query('SELECT pg_terminate_backend(pg_backend_pid())')).rejects.toThrow(/terminat/);
    expect(await api.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    expect(await pid()).not.toBe(before);
  });

  it('says the database is out of reach, with a typed error, when its connections are refused', async () => {
    const proxy = await startProxy(database.url);
    const reached = await openPostgres(proxy.url);
    try {
      // A transaction open when the connection is cut fails; the process carries on.
      let cut!: () => void;
      const open = reached.transaction(() => new Promise<void>((resolve) => (cut = resolve)));
      while (cut === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      await proxy.shut();
      cut();
      await expect(open).rejects.toThrow(/terminated/);
      // The pool's idle connection is found broken by the first statement after the cut (that statement may
      // have been sent: it fails untyped); from then on every connection is refused.
      await reached.query('SELECT 1').catch(() => {});
      const { ms, outcome } = await timed(reached.withWaitLimit(5_000).query('SELECT 1'));
      expect(outcome).toBeInstanceOf(DatabaseUnavailableError);
      expect(ms).toBeLessThan(2_000);
      // Background work (no limit) gets pg's own error, and the process carries on.
      await expect(reached.query('SELECT 1')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await reached.close();
    }
  });
});

describe('the service when its PostgreSQL pool is taken', () => {
  let service: RunningService;
  let database: Awaited<ReturnType<typeof createEmptyPostgres>>;
  let dataDir: string;
  const { sink, lines } = lineSink();
  let key: string;

  beforeAll(async () => {
    dataDir = await initialisedDataDir('svc-db-wait-');
    database = await createEmptyPostgres();
    const logger = pino({ level: 'info' }, sink);
    const config = readConfig({
      PORT: '0',
      DATABASE_URL: database.url,
      SVC_DATA_DIR: dataDir,
      SVC_DATABASE_WAIT_MS: '300',
    });
    service = await startService(config, logger);
    key = (await insertSandboxKey(service.ctx.db)).token;
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${service.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('answers 503 service_unavailable in bounded time, changes nothing, and lets the worker wait', async () => {
    const before = await databaseFingerprint(service.ctx.db);
    const fromLine = lines.length;
    const giveBack = await holdEveryConnection(service.ctx.db);
    let answers: { status: number; body: { error: { code: string; request_id: string } }; ms: number }[];
    try {
      const started = performance.now();
      const responses = await Promise.all([
        send('GET', '/v1/workspace/webhooks'),
        // The peer protocol's routes, and a body refused only once the caller is checked, answer the same.
        send('GET', `/peer/v1/identities/sha256:${'ab'.repeat(32)}/card`),
        fetch(`${service.baseUrl}/v1/workspace/webhooks`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: '{not json',
        }),
        send('POST', '/v1/workspace/webhooks', {
          url: 'https://example.com/hook',
          events: ['message.received'],
        }),
      ]);
      const ms = performance.now() - started;
      answers = await Promise.all(
        responses.map(async (response) => ({ status: response.status, body: await response.json(), ms })),
      );
      // Long enough for the delivery worker's one-second poll to have waited on the pool meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    } finally {
      await giveBack();
    }
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe('service_unavailable');
      expect(answer.body.error.request_id).toMatch(/\S/);
      expect(answer.ms).toBeLessThan(3_000);
    }
    expect(await databaseFingerprint(service.ctx.db)).toBe(before);
    const logged = lines.slice(fromLine).join('');
    expect(logged).toContain('the database is unavailable');
    // The worker waited for its connection rather than failing its claims.
    expect(logged).not.toContain('claiming deliveries failed');
    expect((await send('GET', '/v1/workspace/webhooks')).status).toBe(200);
  });
});

describe('the service when PostgreSQL cuts its statements short', () => {
  let service: RunningService;
  let database: Awaited<ReturnType<typeof createEmptyPostgres>>;
  let dataDir: string;
  const { sink, lines } = lineSink();
  let key: string;
  let endpointId: string;

  beforeAll(async () => {
    dataDir = await initialisedDataDir('svc-db-cut-');
    database = await createEmptyPostgres();
    // How an operator bounds lock waits without touching the role: a setting in the URL's `options`.
    const url = new URL(database.url);
    url.searchParams.set('options', '-c lock_timeout=300');
    const config = readConfig({ PORT: '0', DATABASE_URL: url.href, SVC_DATA_DIR: dataDir });
    service = await startService(config, pino({ level: 'info' }, sink));
    key = (await insertSandboxKey(service.ctx.db)).token;
    endpointId = (
      await seedActiveEndpoint(
        service.ctx.db,
        service.ctx.secretBox,
        SANDBOX_WORKSPACE_ID,
        'https://example.com/hook',
      )
    ).id;
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await database?.drop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers a lock wait past the timeout 503 service_unavailable, and keeps nothing of the request', async () => {
    const before = await databaseFingerprint(service.ctx.db);
    const fromLine = lines.length;
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    const call = async (method: string, body?: unknown) => {
      const started = performance.now();
      const response = await fetch(
        `${service.baseUrl}/v1/workspace/webhooks${method === 'PATCH' ? `/${endpointId}` : ''}`,
        {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        },
      );
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      return { status: response.status, error, ms: performance.now() - started };
    };
    let answers: Awaited<ReturnType<typeof call>>[];
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE webhook_endpoints IN ACCESS EXCLUSIVE MODE');
      answers = await Promise.all([call('GET'), call('PATCH', { status: 'paused' })]);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.error.code).toBe('service_unavailable');
      expect(answer.error.message).not.toMatch(/lock|timeout|cancel/i);
      expect(answer.ms).toBeLessThan(3_000);
    }
    expect(await databaseFingerprint(service.ctx.db)).toBe(before);
    const warnings = lines
      .slice(fromLine)
      .map((line) => JSON.parse(line) as { msg: string; err?: { message: string } })
      .filter((line) => line.msg === 'the database is unavailable');
    expect(warnings.length).toBeGreaterThanOrEqual(2);
    // The cause's message once, as the log's serializer appends it.
    for (const { err } of warnings)
      expect(err?.message).toBe(
        'the database cut a statement short: canceling statement due to lock timeout',
      );
    // The connections the server only refused a statement on serve the next requests.
    expect((await call('GET')).status).toBe(200);
    expect((await call('PATCH', { status: 'paused' })).status).toBe(200);
  });
});
