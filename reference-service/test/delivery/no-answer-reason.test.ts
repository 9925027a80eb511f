import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { NO_ANSWER_REASONS, type NoAnswerReason } from '../../src/domain/no-answer-reasons.js';
import type { Db } from '../../src/store/db.js';
import type { OpenedStore } from '../../src/store/open.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { BACKENDS } from '../support/backends.js';
import { insertUnansweredFailure, seedActiveEndpoint } from '../support/endpoints.js';
import { call, testResolve } from '../support/harness.js';
import { useStore } from '../support/service-lifecycle.js';
import { seedWorkspace } from '../support/workspaces.js';
import {
  createDeliveryTenant,
  createEndpoint,
  deliveries,
  eventually,
  startDeliveringService,
  startExpressReceiver,
  trigger,
  WEBHOOKS,
} from './support.js';

interface Statement {
  sql: string;
  params: readonly unknown[];
}

/** The store's database, recording every statement made through it (the delivery worker's, here). */
function recording(db: Db, statements: Statement[]): Db {
  return new Proxy(db, {
    get(target, property) {
      if (property === 'query') {
        return (sql: string, params: readonly unknown[] = []) => {
          statements.push({ sql, params });
          return target.query(sql, params);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A TCP receiver that takes the request and never answers. */
async function silentReceiver() {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A loopback port nothing listens on any more. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return `http://127.0.0.1:${port}/hooks`;
}

const flat = (params: readonly unknown[]) => params.flatMap((p) => (Array.isArray(p) ? p : [p]));

/**
 * One event to five endpoints of a tenant, through the real service over HTTP: a receiver that answers,
 * one that never does, a closed port, a name that now resolves inside, and a name that no longer resolves.
 * Each failure's row keeps its code, read from the portal's route and never from the /v1 record; each row
 * is logged by one statement, the success by its batch.
 */
describe.each(BACKENDS)('why an attempt got no answer, kept with its row, on $name', (backend) => {
  const statements: Statement[] = [];
  const opened = useStore(backend);
  const store: OpenedStore = {
    get db() {
      return recording(opened.db, statements);
    },
    close: () => opened.close(),
  };
  // Registration checks these names as public; by the time the event goes out, DNS says otherwise.
  const moved = new Map<string, string[] | 'gone'>();
  const resolveHost = async (name: string) => {
    const now = moved.get(name);
    if (now === 'gone') throw Object.assign(new Error(`queryA ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return now ?? testResolve(name);
  };

  it('stores the code of each failure, null for the answer, one statement per row', async () => {
    const service = await startDeliveringService(store, { totalTimeoutMs: 1_000, resolveHost });
    const answering = await startExpressReceiver();
    const silent = await silentReceiver();
    try {
      const tenant = await createDeliveryTenant(service);
      const ok = await createEndpoint(service, tenant, answering.url);
      answering.setSecret(ok.secret);
      const expected = new Map<string, NoAnswerReason | null>([[ok.id, null]]);
      expected.set((await createEndpoint(service, tenant, silent.url)).id, 'timeout');
      expected.set((await createEndpoint(service, tenant, await closedPortUrl())).id, 'refused');
      const inside = 'inside.hooks.example.com';
      const vanished = 'vanished.hooks.example.com';
      expected.set((await createEndpoint(service, tenant, `https://${inside}/in`)).id, 'guard_refused');
      expected.set((await createEndpoint(service, tenant, `https://${vanished}/in`)).id, 'dns');
      moved.set(inside, ['10.0.0.5']);
      moved.set(vanished, 'gone');

      await trigger(service, tenant, 'integration.created', tenant.slug);
      const records = new Map<string, { id: string; status: string; http_status: number | null }>();
      for (const endpointId of expected.keys()) {
        const [record] = await eventually(
          () => deliveries(service, tenant, endpointId),
          (rows) => rows.length === 1 && rows[0]!.status !== 'pending' && rows[0]!.status !== 'sending',
          15_000,
        );
        records.set(endpointId, record!);
        // The spec's record is unchanged: the code is never one of its fields.
        expect(Object.keys(record!)).not.toContain('no_answer_reason');
      }

      // What the worker ran until every row was logged (the portal's reads below are not part of it).
      const logging = statements.filter(({ sql }) => !sql.includes('claim_webhook_deliveries'));
      for (const [endpointId, reason] of expected) {
        const record = records.get(endpointId)!;
        expect({ endpointId, status: record.status }).toEqual({
          endpointId,
          status: reason === null ? 'delivered' : 'failed',
        });
        const opened = await call(
          service,
          'GET',
          `${WEBHOOKS}/${endpointId}/deliveries/${record.id}/request`,
          { auth: { cookie: tenant.plainSession } },
        );
        expect(opened.status).toBe(200);
        expect({
          endpointId,
          reason: (opened.body as { no_answer_reason: unknown }).no_answer_reason,
        }).toEqual({ endpointId, reason });
        // One statement logged the row: the success's batch, or the failure's own statement with its code.
        const logged = logging.filter(({ params }) => flat(params).includes(record.id));
        const kind = ({ sql }: Statement) =>
          sql.includes('record_webhook_successes')
            ? 'success batch'
            : sql.includes('no_answer_reason = $9')
              ? 'failure'
              : sql.replace(/\s+/g, ' ').slice(0, 60);
        expect({ endpointId, logged: logged.map(kind) }).toEqual({
          endpointId,
          logged: [reason === null ? 'success batch' : 'failure'],
        });
        if (reason !== null) expect(logged[0]!.params[8]).toBe(reason);
      }
      expect(answering.received).toHaveLength(1);
    } finally {
      await service.close();
      await answering.close();
      await silent.close();
    }
  }, 30_000);

  it('keeps the column to the list of codes: each is stored, free text is refused', async () => {
    const workspaceId = await seedWorkspace(opened.db);
    const box = createSecretBox(randomBytes(32));
    const endpoint = await seedActiveEndpoint(opened.db, box, workspaceId, 'https://hooks.example.com/c');
    const eventId = await insertUnansweredFailure(opened.db, { workspaceId, endpointId: endpoint.id });
    const write = (reason: string) =>
      opened.db.query('UPDATE webhook_deliveries SET no_answer_reason = $1 WHERE event_id = $2', [
        reason,
        eventId,
      ]);
    for (const reason of NO_ANSWER_REASONS) await write(reason);
    await expect(write('connect ECONNREFUSED 10.0.0.5:443')).rejects.toThrow(/no_answer_reason/);
  });
});
