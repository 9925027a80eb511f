// Two instances on one PostgreSQL database: the CLI's stream is held by one, the event is emitted and its
// delivery claimed by the other; the delivery is relayed through NOTIFY and made exactly once.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenedStore, openStore } from '../../src/store/open.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import {
  createDeliveryTenant,
  deliveries,
  eventually,
  type Receiver,
  startExpressReceiver,
} from '../delivery/support.js';
import { createEmptyPostgres } from '../support/backends.js';
import { type CliProcess, cliOnce, listenerOf, runCli, startRelayService } from './support.js';

describe('svc-webhooks listen with two instances on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createEmptyPostgres>>;
  const stores: OpenedStore[] = [];
  let holder: Awaited<ReturnType<typeof startRelayService>>;
  let emitter: Awaited<ReturnType<typeof startRelayService>>;
  let app: Receiver;
  let listen: CliProcess | undefined;

  beforeAll(async () => {
    database = await createEmptyPostgres();
    for (let i = 0; i < 2; i++)
      stores.push(await openStore({ databaseUrl: database.url, dataDir: '/nonexistent' }));
    const secretBox = createSecretBox(randomBytes(32));
    holder = await startRelayService(stores[0]!, { soleInstance: false, secretBox });
    emitter = await startRelayService(stores[1]!, { soleInstance: false, secretBox });
    // Only the emitter's worker claims: every delivery must cross to the stream's instance and back.
    await holder.delivery.stop();
    app = await startExpressReceiver();
  });
  afterAll(async () => {
    listen?.child.kill('SIGKILL');
    await listen?.exited;
    await app?.close();
    await holder?.close();
    await emitter?.close();
    for (const store of stores) await store.close();
    await database?.drop();
  });

  it('delivers each event once through the instance that holds the stream', async () => {
    const tenant = await createDeliveryTenant(holder);
    listen = runCli(['listen', '--forward-to', app.url], {
      SVC_API_KEY: tenant.key,
      SVC_BASE_URL: holder.baseUrl,
    });
    const listener = await listenerOf(listen);
    app.setSecret(listener.secret);
    const emitted: string[] = [];
    for (const type of ['message.received', 'contact.approved', 'contact.removed']) {
      const run = await cliOnce(['trigger', type], {
        SVC_API_KEY: tenant.key,
        SVC_BASE_URL: emitter.baseUrl,
      });
      emitted.push(/^(evt_[0-9a-f]+)/.exec(run.stdout)![1]!);
    }
    const log = await eventually(
      () => deliveries(emitter, tenant, listener.id),
      (rows) => rows.length === 3 && rows.every((row) => row.status !== 'sending'),
      20_000,
    );
    expect(log.map((row) => [row.status, row.http_status])).toEqual([
      ['delivered', 200],
      ['delivered', 200],
      ['delivered', 200],
    ]);
    expect(app.received.map((r) => r.eventId).sort()).toEqual([...emitted].sort());
  });
});
