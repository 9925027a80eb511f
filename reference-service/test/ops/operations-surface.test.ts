import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { SANDBOX_WORKSPACE_ID } from '../../src/features/sandbox/seed.js';
import { type RunningService, startService } from '../../src/server.js';
import { BACKENDS, createEmptyPostgres } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { startTestService } from '../support/harness.js';
import { initialisedDataDir } from '../support/pglite-snapshot.js';

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

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
      const text = await (await fetch(service.metricsUrl!)).text();
      expect(sample(text, 'svc_outbox_pending')).toBe(1);
      expect(sample(text, 'svc_outbox_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(59);
      expect(sample(text, 'svc_webhook_endpoints_auto_paused')).toBe(1);
    });
  },
);

describe('readiness', () => {
  const backend = BACKENDS[0]!;

  it('is refused while the delivery worker is not running, and once the database is gone', async () => {
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

      await service.ctx.db.exec('DROP TABLE schema_migrations');
      const missing = await fetch(`${service.baseUrl}/readyz`);
      expect(missing.status).toBe(503);

      await store.close();
      const gone = await fetch(`${service.baseUrl}/readyz`);
      expect(gone.status).toBe(503);
      expect(await gone.json()).toEqual({ status: 'unavailable' });
      expect(service.logs()).toContain('not ready');
    } finally {
      await service.close();
      await store.close();
    }
  });
});
