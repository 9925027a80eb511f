import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NOT_SENT_PAUSED } from '@svc-kit/contract';
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

/**
 * A receiver in every mood of the soak, in turn per endpoint: answers at once, answers after 200 ms, fails
 * (a 500 one time, a dropped connection the next), answers at once. In the order answers come back,
 * failures never run long, so no endpoint is ever auto-paused.
 */
async function startFlakyReceiver() {
  /** Arrivals per delivery id (one per attempt the service made). */
  const attempts = new Map<string, number>();
  const answeredOk = new Set<string>();
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const deliveryId = String(req.headers[HEADER_NAMES.delivery]);
      attempts.set(deliveryId, (attempts.get(deliveryId) ?? 0) + 1);
      // Counted per endpoint (path): a shared count could hand one endpoint only the failing turns.
      const turn = arrivals.get(req.url ?? '') ?? 0;
      arrivals.set(req.url ?? '', turn + 1);
      const mood = turn % 4;
      if (mood === 1) {
        setTimeout(() => {
          answeredOk.add(deliveryId);
          res.writeHead(204).end();
        }, 200);
      } else if (mood !== 2) {
        answeredOk.add(deliveryId);
        res.writeHead(204).end();
      } else if (turn % 8 === 2) res.writeHead(500).end('failing');
      else req.socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    attempts,
    answeredOk,
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

  it('delivers every event exactly once, whichever instance took it and whichever delivered it, beside reads, writes and a flaky receiver', async () => {
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
    const main = await seedActiveEndpoint(a.ctx.db, a.ctx.secretBox, SANDBOX_WORKSPACE_ID, receiver.url);
    const flaky = await startFlakyReceiver();
    cleanups.push(flaky.close);
    await seedActiveEndpoint(a.ctx.db, a.ctx.secretBox, SANDBOX_WORKSPACE_ID, flaky.url('/steady'));
    // Paused and resumed all along by the load: its events are delivered or logged failed, once each.
    const toggled = await seedActiveEndpoint(
      a.ctx.db,
      a.ctx.secretBox,
      SANDBOX_WORKSPACE_ID,
      flaky.url('/toggled'),
    );

    const emitted: string[] = [];
    let refused = 0;
    // The instance shutting down. A request sent to it as its shutdown begins can meet an idle kept-alive
    // connection being closed (HTTP/1.1 cannot tell the client in time; a balancer retries elsewhere):
    // such a request was not taken, and an event it did make anyway would show below as a row no one
    // emitted. A failure to reach any other instance fails the test.
    let closing: RunningService | undefined;
    const reach = async (service: RunningService, path: string, init: RequestInit) => {
      try {
        return await fetch(`${service.baseUrl}${path}`, init);
      } catch (error) {
        if (service === closing) return undefined;
        throw error;
      }
    };
    const emit = async (service: RunningService) => {
      const response = await reach(service, '/sandbox/events', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'integration.created' }),
      });
      if (response === undefined) return;
      if (response.status === 201)
        emitted.push(((await response.json()) as { event: { id: string } }).event.id);
      else refused++;
    };
    // The soak's other calls beside the events: reads and a write, none of which may fail.
    const callFailures: string[] = [];
    let paused = false;
    const call = async (service: RunningService, path: string, init: RequestInit = {}) => {
      const response = await reach(service, path, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      });
      if (response === undefined) return;
      await response.arrayBuffer();
      if (response.status !== 200) callFailures.push(`${init.method ?? 'GET'} ${path}: ${response.status}`);
    };
    const otherCalls = (service: RunningService) => {
      paused = !paused;
      return Promise.all([
        call(service, '/v1/workspace/webhooks'),
        call(service, `/v1/workspace/webhooks/${main.id}/deliveries?limit=20`),
        call(service, `/v1/workspace/webhooks/${toggled.id}`, {
          method: 'PATCH',
          body: JSON.stringify({ status: paused ? 'paused' : 'active' }),
        }),
      ]);
    };
    // Load through both instances, as a balancer spreads it; while one restarts, through the other only.
    let loading = true;
    const load = (async () => {
      let turn = 0;
      while (loading) {
        const target = turn++ % 2 === 0 || b === undefined ? a : b;
        await Promise.all([emit(target), emit(a), turn % 3 === 0 ? otherCalls(target) : undefined]);
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

    // The rolling restart: B stops gracefully (in-flight requests and attempts finish) while A keeps
    // taking events, then B starts again.
    const stopping = b;
    b = undefined;
    closing = stopping;
    await stopping.close();
    const during = emitted.length;
    await until(() => emitted.length >= during + 50, 60_000);
    b = await start();
    const after = emitted.length;
    await until(() => emitted.length >= after + 100, 60_000);
    loading = false;
    await load;
    expect(refused).toBe(0);
    expect(callFailures).toEqual([]);

    // Every event accepted reaches the receiver exactly once and is logged delivered exactly once.
    await until(() => emitted.every((id) => receiver.arrivals.has(id)), 120_000);
    const rows = await a.ctx.db.query<{ event_id: string; status: string }>(
      'SELECT event_id, status FROM webhook_deliveries WHERE endpoint_id = $1',
      [main.id],
    );
    const byEvent = new Map(rows.map((row) => [row.event_id, row.status]));
    expect(rows.length).toBe(emitted.length);
    for (const id of emitted) {
      expect(receiver.arrivals.get(id)).toBe(1);
      expect(['delivered', 'sending']).toContain(byEvent.get(id));
    }
    // Logged delivered once the last answers are recorded; the flaky endpoints' rows settled too.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [left] = await a.ctx.db.query<{ main: number; unsettled: number }>(
        `SELECT count(*) FILTER (WHERE endpoint_id = $1 AND status <> 'delivered')::int AS main,
                count(*) FILTER (WHERE status IN ('pending', 'sending'))::int AS unsettled
           FROM webhook_deliveries`,
        [main.id],
      );
      if ((left!.main === 0 && left!.unsettled === 0) || Date.now() > deadline) {
        expect(left).toEqual({ main: 0, unsettled: 0 });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect([...receiver.arrivals.values()].every((n) => n === 1)).toBe(true);

    // Every endpoint: one row per event, one attempt at most per row, and the log agrees with the answers.
    const all = await a.ctx.db.query<{ id: string; endpoint_id: string; event_id: string; status: string }>(
      'SELECT id, endpoint_id, event_id, status FROM webhook_deliveries',
    );
    const perEndpoint = new Map<string, Set<string>>();
    for (const row of all) {
      const events = perEndpoint.get(row.endpoint_id) ?? new Set<string>();
      expect(events.has(row.event_id), `${row.event_id} twice for ${row.endpoint_id}`).toBe(false);
      events.add(row.event_id);
      perEndpoint.set(row.endpoint_id, events);
      if (row.endpoint_id !== main.id) {
        // A row of the toggled endpoint still pending when it was paused is settled unsent.
        expect(['delivered', 'failed', NOT_SENT_PAUSED]).toContain(row.status);
        expect(row.status === 'delivered', row.id).toBe(flaky.answeredOk.has(row.id));
      }
    }
    expect(perEndpoint.get(main.id)?.size).toBe(emitted.length);
    expect(perEndpoint.size).toBe(3);
    for (const [endpointId, events] of perEndpoint) {
      // The toggled endpoint gets no row for an event emitted while it was paused.
      if (endpointId === toggled.id) expect(events.size).toBeLessThan(emitted.length);
      else expect(events.size).toBe(emitted.length);
    }
    expect([...flaky.attempts.values()].every((n) => n === 1)).toBe(true);
    expect(
      all.filter((row) => row.endpoint_id === toggled.id && row.status === 'failed').length,
    ).toBeGreaterThan(0);
  }, 240_000);
});
