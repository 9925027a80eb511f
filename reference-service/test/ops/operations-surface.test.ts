import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { SANDBOX_WORKSPACE_ID } from '../../src/features/sandbox/seed.js';
import { type RunningService, startService } from '../../src/server.js';
import { BACKENDS, createEmptyPostgres } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { startTestService } from '../support/harness.js';
import { initialisedDataDir } from '../support/pglite-snapshot.js';
import { until } from '../support/until.js';

/** A receiver on loopback that answers 204 and counts what it got. */
async function startReceiver() {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The value of one sample line (`name{labels} value`) in a Prometheus text exposition. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe.each(['pglite', 'postgres'] as const)(
  'the operations surface of a running service on %s',
  (backend) => {
    let service: RunningService;
    let dataDir: string;
    let dropDatabase: (() => Promise<void>) | undefined;
    let apiKey: string;

    beforeAll(async () => {
      dataDir = await initialisedDataDir('svc-ops-');
      const env: Record<string, string> = {
        PORT: '0',
        SVC_DATA_DIR: dataDir,
        SVC_METRICS_PORT: '0',
        SVC_ALLOW_LOCALHOST_WEBHOOKS: '1',
      };
      if (backend === 'postgres') {
        const database = await createEmptyPostgres();
        env.DATABASE_URL = database.url;
        dropDatabase = database.drop;
      }
      service = await startService(readConfig(env), pino({ level: 'silent' }));
      if (!service.seed?.seeded) throw new Error('the sandbox should be seeded on a fresh store');
      apiKey = service.seed.apiKey;
    }, 120_000);

    afterAll(async () => {
      await service?.close();
      await dropDatabase?.();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('answers /healthz and /readyz without credentials and without details', async () => {
      for (const path of ['/healthz', '/readyz']) {
        const response = await fetch(`${service.baseUrl}${path}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(await response.json()).toEqual({ status: 'ok' });
      }
    });

    it('keeps /metrics off the public port and serves it on its own', async () => {
      const onApi = await fetch(`${service.baseUrl}/metrics`);
      expect(onApi.status).toBe(404);
      expect(service.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const response = await fetch(service.metricsUrl!);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      const other = await fetch(service.metricsUrl!.replace('/metrics', '/other'));
      expect(other.status).toBe(404);
    });

    it('counts and times requests per operation and status, and delivery attempts by outcome', async () => {
      const receiver = await startReceiver();
      try {
        await seedActiveEndpoint(service.ctx.db, service.ctx.secretBox, SANDBOX_WORKSPACE_ID, receiver.url);
        const auth = { authorization: `Bearer ${apiKey}` };
        for (let i = 0; i < 3; i++) {
          expect((await fetch(`${service.baseUrl}/v1/workspace/webhooks`, { headers: auth })).status).toBe(
            200,
          );
        }
        expect((await fetch(`${service.baseUrl}/v1/workspace/webhooks`)).status).toBe(401);
        const trigger = await fetch(`${service.baseUrl}/sandbox/events`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'integration.created' }),
        });
        expect(trigger.status).toBe(201);
        await until(async () => receiver.received() >= 1);

        let text = '';
        await until(async () => {
          text = await (await fetch(service.metricsUrl!)).text();
          return (sample(text, 'svc_webhook_delivery_attempts_total{outcome="delivered"}') ?? 0) >= 1;
        });
        const ok = '{operation="listWebhooks",method="GET",status="200"}';
        expect(sample(text, `svc_http_requests_total${ok}`)).toBe(3);
        expect(sample(text, `svc_http_request_duration_seconds_count${ok}`)).toBe(3);
        expect(
          sample(text, 'svc_http_requests_total{operation="listWebhooks",method="GET",status="401"}'),
        ).toBe(1);
        expect(
          sample(text, 'svc_http_requests_total{operation="/sandbox/events",method="POST",status="201"}'),
        ).toBe(1);
        expect(sample(text, 'svc_webhook_delivery_duration_seconds_count{outcome="delivered"}')).toBe(1);
        expect(sample(text, 'svc_outbox_pending')).toBe(0);
        expect(sample(text, 'svc_outbox_oldest_pending_age_seconds')).toBe(0);
        expect(sample(text, 'svc_webhook_endpoints_auto_paused')).toBe(0);
        expect(sample(text, 'svc_db_statement_duration_seconds_count')).toBeGreaterThan(5);
        expect(sample(text, 'svc_db_waiting_statements')).toBeGreaterThanOrEqual(0);
        expect(sample(text, 'svc_process_resident_memory_bytes')).toBeGreaterThan(0);
        expect(text).toContain('svc_rate_limit_refusals_total');
        // Nothing a caller sent (a key, a path) becomes a label.
        expect(text).not.toContain(apiKey);
      } finally {
        await receiver.close();
      }
    });

    it('shows the outbox depth and the age of the oldest pending delivery', async () => {
      const at = Date.now() - 60_000;
      await service.ctx.db.query(
        `INSERT INTO events (id, workspace_id, identity, type, body, created_at)
       VALUES ('evt_ops_probe', $1, 'sandbox-alice', 'integration.created', '{}', $2)`,
        [SANDBOX_WORKSPACE_ID, at],
      );
      const [endpoint] = await service.ctx.db.query<{ id: string }>(
        `SELECT id FROM webhook_endpoints WHERE workspace_id = $1 LIMIT 1`,
        [SANDBOX_WORKSPACE_ID],
      );
      // Paused first, so that the worker leaves the row pending.
      await service.ctx.db.query(
        `UPDATE webhook_endpoints SET status = 'paused', consecutive_failures = 20 WHERE id = $1`,
        [endpoint!.id],
      );
      await service.ctx.db.query(
        `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status, created_at)
       VALUES ('dlv_ops_probe', $1, $2, 'evt_ops_probe', 'integration.created', 1, 'pending', $3)`,
        [SANDBOX_WORKSPACE_ID, endpoint!.id, at],
      );
      // Older, but held by the delivery pace for an hour more: not late, so not the oldest due.
      await service.ctx.db.query(
        `INSERT INTO events (id, workspace_id, identity, type, body, created_at)
       VALUES ('evt_ops_paced', $1, 'sandbox-alice', 'integration.created', '{}', $2)`,
        [SANDBOX_WORKSPACE_ID, at - 60_000],
      );
      await service.ctx.db.query(
        `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status, created_at, next_attempt_at)
       VALUES ('dlv_ops_paced', $1, $2, 'evt_ops_paced', 'integration.created', 1, 'pending', $3, $4)`,
        [SANDBOX_WORKSPACE_ID, endpoint!.id, at - 60_000, Date.now() + 3_600_000],
      );
      const text = await (await fetch(service.metricsUrl!)).text();
      expect(sample(text, 'svc_outbox_pending')).toBe(2);
      const age = sample(text, 'svc_outbox_oldest_pending_age_seconds');
      expect(age).toBeGreaterThanOrEqual(59);
      expect(age).toBeLessThan(100);
      expect(sample(text, 'svc_webhook_endpoints_auto_paused')).toBe(1);
    });

    it('counts a request whose caller left before the answer, and HEAD under its GET', async () => {
      const auth = { authorization: `Bearer ${apiKey}` };
      expect(
        (await fetch(`${service.baseUrl}/v1/workspace/webhooks`, { method: 'HEAD', headers: auth })).status,
      ).toBe(200);
      // A POST whose body never arrives: the caller leaves with the request half sent.
      const socket = connect(Number(new URL(service.baseUrl).port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /v1/workspace/webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${apiKey}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"url":',
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      const aborted = 'svc_http_requests_total{operation="createWebhook",method="POST",status="aborted"}';
      let text = '';
      await until(async () => {
        text = await (await fetch(service.metricsUrl!)).text();
        return sample(text, aborted) === 1;
      });
      expect(
        sample(text, 'svc_http_requests_total{operation="listWebhooks",method="HEAD",status="200"}'),
      ).toBe(1);
      expect(text).not.toContain('operation="/v1/workspace/webhooks"');
      // Transactions' waits before their first statement (the sandbox's seeding ran in some).
      expect(sample(text, 'svc_db_section_wait_seconds_count')).toBeGreaterThan(0);
    });

    it('counts 429 refusals by operation', async () => {
      let refused = 0;
      for (let i = 0; i < 40; i++) {
        const response = await fetch(`${service.baseUrl}/v1/workspace/contacts-probe-${i}`, {
          headers: { authorization: 'Bearer svc_not_a_key' },
        });
        await response.body?.cancel();
        const listed = await fetch(`${service.baseUrl}/v1/workspace/webhooks`, {
          headers: { authorization: 'Bearer svc_not_a_key' },
        });
        await listed.body?.cancel();
        if (listed.status === 429) refused++;
      }
      expect(refused).toBeGreaterThan(0);
      const text = await (await fetch(service.metricsUrl!)).text();
      expect(sample(text, 'svc_rate_limit_refusals_total{operation="listWebhooks"}')).toBe(refused);
    });

    it('still serves every other figure while the database does not answer, and says so', async () => {
      let release!: () => void;
      // A lock every read of the outbox waits for (and, on PGlite, the one session held).
      const locked = new Promise<void>((resolveLocked) => {
        void service.ctx.db.transaction(async (tx) => {
          await tx.exec('LOCK TABLE webhook_deliveries IN ACCESS EXCLUSIVE MODE');
          resolveLocked();
          await new Promise<void>((resolve) => (release = resolve));
        });
      });
      await locked;
      try {
        const started = Date.now();
        const response = await fetch(service.metricsUrl!);
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(Date.now() - started).toBeLessThan(6_000);
        expect(sample(text, 'svc_metrics_db_read_ok')).toBe(0);
        expect(sample(text, 'svc_outbox_pending')).toBeGreaterThanOrEqual(0);
        expect(sample(text, 'svc_process_resident_memory_bytes')).toBeGreaterThan(0);
        expect(sample(text, 'svc_db_waiting_statements')).toBeGreaterThanOrEqual(0);
      } finally {
        release();
      }
      await until(
        async () => sample(await (await fetch(service.metricsUrl!)).text(), 'svc_metrics_db_read_ok') === 1,
      );
    });
  },
);

describe('readiness', () => {
  const backend = BACKENDS[0]!;

  it('is refused while the delivery worker is not running, a migration is missing or the database is gone', async () => {
    const store = await backend.open();
    let workerRunning = false;
    const service = await startTestService(store, {
      extra: { readiness: { deliveryRunning: () => workerRunning } },
    });
    try {
      const notYet = await fetch(`${service.baseUrl}/readyz`);
      expect(notYet.status).toBe(503);
      expect(await notYet.json()).toEqual({ status: 'unavailable' });
      expect((await fetch(`${service.baseUrl}/healthz`)).status).toBe(200);
      workerRunning = true;
      expect((await fetch(`${service.baseUrl}/readyz`)).status).toBe(200);

      // The newest migration unrecorded: the database answers, but this build's schema is not all there.
      const [newest] = await service.ctx.db.query<Record<string, unknown>>(
        'DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations) RETURNING *',
      );
      expect((await fetch(`${service.baseUrl}/readyz`)).status).toBe(503);
      expect(service.logs()).toContain('not ready: migrations are missing');
      const columns = Object.keys(newest!);
      await service.ctx.db.query(
        `INSERT INTO schema_migrations (${columns.join(', ')}) VALUES (${columns.map((_c, i) => `$${i + 1}`).join(', ')})`,
        Object.values(newest!),
      );
      expect((await fetch(`${service.baseUrl}/readyz`)).status).toBe(200);
      expect(service.logs()).toContain('ready again');

      await store.close();
      const gone = await fetch(`${service.baseUrl}/readyz`);
      expect(gone.status).toBe(503);
      expect(await gone.json()).toEqual({ status: 'unavailable' });
      expect(service.logs()).toContain('not ready: the database check failed');
    } finally {
      await service.close();
      await store.close();
    }
  });

  it('puts one statement on a stalled database however many probes arrive, and logs the reason once', async () => {
    const store = await backend.open();
    let readinessQueries = 0;
    const counted = {
      ...store,
      db: {
        ...store.db,
        async query<Row extends object>(sql: string, params?: readonly unknown[]) {
          if (sql.includes('schema_migrations')) readinessQueries++;
          return store.db.query<Row>(sql, params);
        },
      },
    };
    const service = await startTestService(counted, {
      extra: { readiness: { deliveryRunning: () => true } },
    });
    let release!: () => void;
    // An open transaction holds PGlite's one session: every other statement waits behind it.
    const stall = store.db.transaction(() => new Promise<void>((resolve) => (release = resolve)));
    try {
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 40 }, () => fetch(`${service.baseUrl}/readyz`).then((r) => r.status)),
      );
      expect(answers).toEqual(Array.from({ length: 40 }, () => 503));
      // Each waited for the check's timeout (2 s), none much longer.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(readinessQueries).toBe(1);
      const reasons = service
        .logs()
        .split('\n')
        .filter((line) => line.includes('not ready:'));
      expect(reasons).toHaveLength(1);

      release();
      await stall;
      expect((await fetch(`${service.baseUrl}/readyz`)).status).toBe(200);
    } finally {
      release?.();
      await service.close();
      await store.close();
    }
  });
});

describe('a running service shutting down', () => {
  it('answers /readyz 503 from the moment its shutdown begins', async () => {
    const dataDir = await initialisedDataDir('svc-ops-close-');
    const service = await startService(
      readConfig({ PORT: '0', SVC_DATA_DIR: dataDir }),
      pino({ level: 'silent' }),
    );
    try {
      expect((await service.app.inject({ url: '/readyz' })).statusCode).toBe(200);
      // Asked right after the shutdown began, while the worker still runs and requests are still served.
      const closing = service.close();
      const during = await service.app.inject({ url: '/readyz' });
      await closing;
      expect(during.statusCode).toBe(503);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('takes no new connection from the moment its shutdown begins, its metrics port open or not', async () => {
    const dataDir = await initialisedDataDir('svc-ops-refuse-');
    const service = await startService(
      readConfig({ PORT: '0', SVC_DATA_DIR: dataDir, SVC_METRICS_PORT: '0' }),
      pino({ level: 'silent' }),
    );
    const { port } = new URL(service.baseUrl);
    const dial = () =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve('accepted');
        });
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
    try {
      expect(await dial()).toBe('accepted');
      const closing = service.close();
      // Dialled in the turn the shutdown began.
      const dialled = dial();
      await closing;
      expect(await dialled).toBe('ECONNREFUSED');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
