import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { openStore } from '../../src/store/open.js';
import { insertIdentity } from '../../src/store/queries/identities.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { createEmptyPostgres } from '../support/backends.js';
import { startCountingReceiver } from '../support/counting-receiver.js';
import { seedActiveEndpoint } from '../support/endpoints.js';
import { createTenant, type Tenant, testContext } from '../support/harness.js';
import { initialisedDataDir } from '../support/pglite-snapshot.js';
import { buildEntryPoint, type ServiceProcess, spawnService } from '../support/service-process.js';
import { requestFrom, startSlowClients } from '../support/slow-clients.js';
import { until } from '../support/until.js';

/** The open-files limit of many container runtimes: the attack below used to exhaust it. */
const OPEN_FILES = 1024;
/** More connections than the process may have files. */
const ATTACK_CONNECTIONS = 1100;
/** Shorter than the default so that the test sees the deadline end the attack's requests. */
const REQUEST_TIMEOUT_MS = 6_000;
const PER_ADDRESS = 64;

const healthz = (baseUrl: string, from: string) => requestFrom(`${baseUrl}/healthz`, from);

/**
 * Slow requests cannot pin the service: a process under an open-files limit of 1,024 is attacked from one
 * address with more connections than that, each sending a login's headers with a large Content-Length and
 * then a byte every two seconds. The connections over the per-address cap are closed at once, the rest are
 * ended by the request deadline (408), and meanwhile `/healthz` answers another client and a webhook goes
 * out. Before the caps, every connection was held and the process ran out of files.
 */
describe.each(['pglite', 'postgres'] as const)('slow requests on %s', (backend) => {
  let entry: Awaited<ReturnType<typeof buildEntryPoint>>;
  let receiver: Awaited<ReturnType<typeof startCountingReceiver>>;
  let database: { url: string; drop(): Promise<void> } | undefined;
  let service: ServiceProcess | undefined;
  let tenant: Tenant;

  beforeAll(async () => {
    entry = await buildEntryPoint();
    receiver = await startCountingReceiver();
    const secretKey = randomBytes(32).toString('hex');
    const dataDir = await initialisedDataDir('svc-slow-');
    if (backend === 'postgres') database = await createEmptyPostgres();
    const store = await openStore({ databaseUrl: database?.url, dataDir });
    const secretBox = createSecretBox(Buffer.from(secretKey, 'hex'));
    const ctx = testContext(store, { secretBox, allowLocalhostWebhooks: true });
    tenant = await createTenant(ctx, { webhooksEnabled: true });
    const identity = { id: newId('idn'), workspace_id: tenant.workspaceId, slug: 'slow', created_at: 0 };
    await insertIdentity(store.db, identity);
    await seedActiveEndpoint(store.db, secretBox, tenant.workspaceId, receiver.url);
    await store.close();
    service = spawnService(
      entry.main,
      {
        SVC_DATA_DIR: dataDir,
        SVC_SECRET_KEY: secretKey,
        SVC_ALLOW_LOCALHOST_WEBHOOKS: '1',
        SVC_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        SVC_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
        ...(database ? { DATABASE_URL: database.url } : {}),
      },
      ['bash', '-c', `ulimit -n ${OPEN_FILES} && exec "$@"`, 'bash'],
    );
  }, 120_000);
  afterAll(async () => {
    if (service?.child.pid && service.child.exitCode === null) process.kill(-service.child.pid, 'SIGKILL');
    await service?.exited;
    await database?.drop();
    await receiver?.close();
    await entry?.remove();
  }, 60_000);

  it('keeps answering and delivering while one address holds slow requests open', async () => {
    const baseUrl = await service!.ready();
    const attack = startSlowClients(baseUrl, {
      connections: ATTACK_CONNECTIONS,
      path: '/v1/sessions',
      // Under the body limit (a larger one is refused as its headers arrive): the body trickles in.
      contentLength: 60_000,
      byteEveryMs: 2_000,
      from: ['127.0.0.1'],
    });
    try {
      await attack.connected;
      // Everything over the per-address cap is closed at once; the rest stays, trickling.
      await until(() => attack.open() <= PER_ADDRESS, 10_000);
      expect(attack.open()).toBeGreaterThan(0);
      expect(attack.cutOff()).toBeGreaterThanOrEqual(ATTACK_CONNECTIONS - PER_ADDRESS);

      // While they are held: another client is answered, and a webhook is delivered.
      expect(await healthz(baseUrl, '127.0.0.2')).toBe(200);
      const before = receiver.received();
      const event = await requestFrom(`${baseUrl}/sandbox/events`, '127.0.0.3', {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'integration.created', identity: 'slow' }),
      });
      expect(event).toBe(201);
      await until(() => receiver.received() > before, 20_000);

      // The request deadline ends every held request with 408; nothing is left open.
      await until(() => attack.open() === 0, REQUEST_TIMEOUT_MS + 10_000);
      expect(attack.timedOut()).toBeGreaterThan(0);
      expect(attack.timedOut() + attack.cutOff()).toBe(ATTACK_CONNECTIONS);
      // The attacker's own address is served again: once the server has released the closed connections
      // from its per-address count (the client may see them closed first, and a connection over the cap
      // is reset).
      await until(async () => (await healthz(baseUrl, '127.0.0.1').catch(() => 0)) === 200, 5_000);
      expect(service!.child.exitCode).toBeNull();
    } finally {
      attack.stop();
    }
  }, 120_000);
});
