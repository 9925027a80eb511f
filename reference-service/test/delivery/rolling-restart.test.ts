import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HEADER_NAMES } from '@svc-kit/webhooks';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { SANDBOX_WORKSPACE_ID } from '../../src/features/sandbox/seed.js';
import { type RunningService, startService } from '../../src/server.js';
import { createEmptyPostgres } from '../support/backends.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { initialisedDataDir } from '../support/pglite-snapshot.js';

/** Answers every delivery 204 after a short pause (so that attempts are in flight at any moment). */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const eventId = String(req.headers[HEADER_NAMES.eventId]);
      setTimeout(() => {
        arrivals.set(eventId, (arrivals.get(eventId) ?? 0) + 1);
        res.writeHead(204).end();
      }, 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a rolling restart of one of two instances on one PostgreSQL database, under load', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it('delivers every event exactly once, whichever instance took it and whichever delivered it', async () => {
    const database = await createEmptyPostgres();
    cleanups.push(database.drop);
    const dataDir = await initialisedDataDir('svc-rolling-');
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const config = readConfig({
      PORT: '0',
      DATABASE_URL: database.url,
      SVC_DATA_DIR: dataDir,
      SVC_SECRET_KEY: randomBytes(32).toString('hex'),
      SVC_ALLOW_LOCALHOST_WEBHOOKS: '1',
    });
    const start = async () => {
      const service = await startService(config, pino({ level: 'silent' }));
      cleanups.push(() => service.close());
      return service;
    };
    const a = await start();
    let b: RunningService | undefined = await start();
    if (!a.seed?.seeded) throw new Error('the first instance seeds the sandbox');
    const key = a.seed.apiKey;
    await seedActiveEndpoint(a.ctx.db, a.ctx.secretBox, SANDBOX_WORKSPACE_ID, receiver.url);

    const emitted: string[] = [];
    let refused = 0;
    const emit = async (service: RunningService) => {
      const response = await fetch(`${service.baseUrl}/sandbox/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'integration.created' }),
      });
      if (response.status === 201)
        emitted.push(((await response.json()) as { event: { id: string } }).event.id);
      else refused++;
    };
    // Load through both instances, as a balancer spreads it; while one restarts, through the other only.
    let loading = true;
    const load = (async () => {
      let turn = 0;
      while (loading) {
        const target = turn++ % 2 === 0 || b === undefined ? a : b;
        await Promise.all([emit(target), emit(a)]);
      }
    })();
    const until = async (check: () => boolean, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline) throw new Error('timed out');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    await until(() => emitted.length >= 100, 60_000);

    // The rolling restart: B stops gracefully (in-flight requests and attempts finish, rows claimed
    // ahead go back) while A keeps taking events, then B starts again.
    const stopping = b;
    b = undefined;
    await stopping.close();
    const during = emitted.length;
    await until(() => emitted.length >= during + 50, 60_000);
    b = await start();
    const after = emitted.length;
    await until(() => emitted.length >= after + 100, 60_000);
    loading = false;
    await load;
    expect(refused).toBe(0);

    // Every event accepted reaches the receiver exactly once and is logged delivered exactly once.
    await until(() => emitted.every((id) => receiver.arrivals.has(id)), 120_000);
    const rows = await a.ctx.db.query<{ event_id: string; status: string }>(
      'SELECT event_id, status FROM webhook_deliveries',
    );
    const byEvent = new Map(rows.map((row) => [row.event_id, row.status]));
    expect(rows.length).toBe(emitted.length);
    for (const id of emitted) {
      expect(receiver.arrivals.get(id)).toBe(1);
      expect(['delivered', 'sending']).toContain(byEvent.get(id));
    }
    // Logged delivered once the last answers are recorded.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [left] = await a.ctx.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`,
      );
      if (left!.n === 0 || Date.now() > deadline) {
        expect(left!.n).toBe(0);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect([...receiver.arrivals.values()].every((n) => n === 1)).toBe(true);
  }, 240_000);
});
