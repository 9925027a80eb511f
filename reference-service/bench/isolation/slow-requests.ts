/**
 * `/healthz` under the slow-request attack of issue 40: the real service, under an open-files limit of
 * 1,024 as in many containers, is held by 1,100 connections from one address that send a login's headers
 * announcing 100 kB and then a byte every 5 s; then by the same attacker reconnecting a second after each
 * connection is closed. Meanwhile another client asks `/healthz` on a new connection every 100 ms, and a
 * webhook event is sent every second and must arrive. Before the connection caps, the process ran out of
 * files and answered nothing.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SANDBOX_IDENTITIES, SANDBOX_WORKSPACE_ID } from '../../src/features/sandbox/seed.js';
import { openStore } from '../../src/store/open.js';
import { createSecretBox } from '../../src/store/secret-box.js';
import { startCountingReceiver } from '../../test/support/counting-receiver.js';
import { seedActiveEndpoint } from '../../test/support/endpoints.js';
import { requestFrom, startSlowClients } from '../../test/support/slow-clients.js';
import type { BenchEnv } from '../support/backends.js';
import { percentile } from '../support/stats.js';
import { type Row, verdict } from '../support/table.js';

const OPEN_FILES = 1024;
const ATTACK_CONNECTIONS = 1100;
const TARGET_MS = 100;
/** The default of SVC_MAX_CONNECTIONS_PER_ADDRESS. */
const PER_ADDRESS = 64;
const ATTACKER = '127.0.0.1';
const PROBE = '127.0.0.2';
const SANDBOX_IDENTITY = SANDBOX_IDENTITIES[0];

export const SLOW_REQUESTS_HEADER: Row = ['measure', 'value', 'target', 'result'];

/**
 * The service bundled beside the bench (bench/tsup.config.ts), started as a container would: under the
 * open-files limit when `limited`. Resolves once it listens (and, on a first start, has printed the
 * sandbox's API key).
 */
async function startService(
  env: BenchEnv,
  dataDir: string,
  secretKey: string,
  { limited, firstStart }: { limited: boolean; firstStart: boolean },
) {
  const main = new URL('./service-main.js', import.meta.url).pathname;
  const limit = limited ? `ulimit -n ${OPEN_FILES} && ` : '';
  const child = spawn('bash', ['-c', `${limit}exec "$@"`, 'bash', process.execPath, main], {
    env: {
      ...process.env,
      ...env,
      PORT: '0',
      NODE_ENV: 'development',
      LOG_LEVEL: 'error',
      SVC_DATA_DIR: dataDir,
      SVC_SECRET_KEY: secretKey,
      SVC_ALLOW_LOCALHOST_WEBHOOKS: '1',
      SVC_FIRST_START_SECRETS: 'stdout',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 120_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)\s/.exec(output)?.[1];
    const key = /svc_[0-9a-f]{16}_[0-9a-f]{64}/.exec(output)?.[0];
    if (url && (key || !firstStart)) {
      const stop = (signal: NodeJS.Signals) => {
        child.kill(signal);
        return exited;
      };
      return { url, key, stop };
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      throw new Error(`the service did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A first start seeds the sandbox and tells its API key; the receiver's endpoint is then written into the
 * sandbox workspace while the service is stopped (PGlite's data dir is one process's at a time).
 */
async function seedSandbox(env: BenchEnv, dataDir: string, secretKey: string, url: string): Promise<string> {
  const first = await startService(env, dataDir, secretKey, { limited: false, firstStart: true });
  await first.stop('SIGTERM');
  if (!first.key) throw new Error('the first start printed no API key');
  const store = await openStore(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL, dataDir } : { dataDir });
  try {
    const box = createSecretBox(Buffer.from(secretKey, 'hex'));
    await seedActiveEndpoint(store.db, box, SANDBOX_WORKSPACE_ID, url);
  } finally {
    await store.close();
  }
  return first.key;
}

interface Probed {
  /** `/healthz` latencies of the answered probes, sorted. */
  latencies: number[];
  failed: number;
  /** Events the service took (each is one delivery to the receiver). */
  sent: number;
}

/**
 * For `seconds`: `/healthz` on a new connection from another address than the attacker's every 100 ms
 * (connecting included), and one sandbox event a second when `auth` is given.
 */
async function probe(url: string, seconds: number, auth?: Record<string, string>): Promise<Probed> {
  const latencies: number[] = [];
  let failed = 0;
  let sent = 0;
  const end = Date.now() + seconds * 1000;
  let nextEvent = Date.now();
  while (Date.now() < end) {
    if (auth && Date.now() >= nextEvent) {
      nextEvent += 1000;
      const status = await requestFrom(`${url}/sandbox/events`, PROBE, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ type: 'integration.created', identity: SANDBOX_IDENTITY }),
      }).catch(() => 0);
      if (status === 201) sent++;
    }
    const started = performance.now();
    const status = await requestFrom(`${url}/healthz`, PROBE).catch(() => 0);
    if (status === 200) latencies.push(performance.now() - started);
    else failed++;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { latencies: latencies.sort((a, b) => a - b), failed, sent };
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

function latencyRows(name: string, probed: Probed): Row[] {
  const p99 = percentile(probed.latencies, 99);
  const max = probed.latencies.at(-1) ?? Number.NaN;
  return [
    [`/healthz p99, ${name}`, ms(p99), `< ${TARGET_MS} ms`, verdict(p99 < TARGET_MS)],
    [`/healthz max, ${name}`, ms(max), `< ${TARGET_MS} ms`, verdict(max < TARGET_MS)],
  ];
}

/**
 * Rows of [measure, value, target, PASS/MISS] for `seconds` of each attack on the backend `env` names:
 * the (connections held, trickling), then the same attacker reconnecting a second after each
 * connection is closed (so that the caps turn away about a thousand connections a second). The attacker
 * runs on this machine, so its own work shares the cores with the service.
 */
export async function measureSlowRequests(env: BenchEnv, seconds: number): Promise<Row[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-slow-'));
  const receiver = await startCountingReceiver();
  const secretKey = randomBytes(32).toString('hex');
  const apiKey = await seedSandbox(env, dataDir, secretKey, receiver.url);
  const service = await startService(env, dataDir, secretKey, { limited: true, firstStart: false });
  try {
    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    await probe(service.url, 2); // the first requests after a start are slower (code not yet optimised)
    const idle = await probe(service.url, Math.min(5, seconds));
    const attack = (reconnectAfterMs?: number) =>
      startSlowClients(service.url, {
        connections: ATTACK_CONNECTIONS,
        path: '/v1/sessions',
        // Under the body limit (a larger one is refused as its headers arrive): the body trickles in.
        contentLength: 60_000,
        byteEveryMs: 5_000,
        from: [ATTACKER],
        ...(reconnectAfterMs === undefined ? {} : { reconnectAfterMs }),
      });
    const holding = attack();
    await holding.connected;
    const held = await probe(service.url, seconds, auth);
    const heldConnections = holding.heldFor(1_000);
    holding.stop();
    const retrying = attack(1_000);
    await retrying.connected;
    const churned = await probe(service.url, seconds, auth);
    retrying.stop();
    const sent = held.sent + churned.sent;
    // Deliveries of the last second are given a moment to arrive.
    const settleBy = Date.now() + 5_000;
    while (receiver.received() < sent && Date.now() < settleBy) await new Promise((r) => setTimeout(r, 50));
    const answered = held.latencies.length + churned.latencies.length;
    const failed = held.failed + churned.failed;
    const attackName = `${ATTACK_CONNECTIONS} slow requests from one address, ulimit -n ${OPEN_FILES}`;
    return [
      [`/healthz p99, idle`, ms(percentile(idle.latencies, 99)), '', ''],
      ...latencyRows(attackName, held),
      ...latencyRows('the same attacker reconnecting after 1 s', churned),
      ['/healthz answered under attack', `${answered} of ${answered + failed}`, 'all', verdict(failed === 0)],
      [
        'webhooks delivered under attack',
        `${receiver.received()} of ${sent}`,
        'all',
        verdict(sent > 0 && receiver.received() >= sent),
      ],
      [
        'attack connections held',
        String(heldConnections),
        `≤ ${PER_ADDRESS} (the per-address cap)`,
        verdict(heldConnections <= PER_ADDRESS),
      ],
    ];
  } finally {
    await service.stop('SIGKILL');
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
