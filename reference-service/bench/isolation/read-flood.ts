/**
 * `read-flood` (attack notes): a quiet tenant's read p50 while another tenant floods plain authenticated
 * reads over 60 connections, as the attack did (about 1,500 a second took the quiet p50 from 3.7 ms to
 * 40–55 ms). The real service as `npm start` runs it (bench/api/target.ts), once without the request budget
 * and once with the default one, each on a fresh database. The flooder is the seeded sandbox (its key, as in
 * the attack); the quiet tenant a workspace signed up for the run (its session, as the portal reads), one
 * read at a time, 25 ms apart (within its own budget). The target is what the budget promises: the flood's
 * reads that ran stay within its burst and rate. The quiet p50 is printed beside it: a flood of cheap 429s
 * still costs the HTTP layer, which the per-address connection cap and a proxy in front bound.
 */
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import {
  DEFAULT_WORKSPACE_REQUEST_RATE,
  workspaceRequestLimit,
} from '../../src/domain/workspace-requests.js';
import type { ApiTargetReady } from '../api/run.js';
import { type BenchBackend, type BenchEnv, onBackend } from '../support/backends.js';
import { percentile } from '../support/stats.js';
import { type Row, verdict } from '../support/table.js';
import { spawnTarget } from '../support/target-process.js';

const CONNECTIONS = 60;
const SAMPLES = Number(process.env.BENCH_READ_FLOOD_SAMPLES ?? 200);
/** Between the quiet tenant's reads: 40 a second at most, within its own budget. */
const GAP_MS = 25;
const READ = '/v1/workspace/webhooks';

async function quietP50(baseUrl: string, cookie: string, samples = SAMPLES): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    await new Promise((resolve) => setTimeout(resolve, GAP_MS));
    const started = performance.now();
    const answer = await fetch(`${baseUrl}${READ}`, { headers: { cookie } });
    await answer.arrayBuffer();
    if (answer.status !== 200) throw new Error(`the quiet tenant's read answered ${answer.status}`);
    times.push(performance.now() - started);
  }
  return percentile(Float64Array.from(times).sort(), 50);
}

async function signUp(baseUrl: string): Promise<string> {
  const email = `quiet-${Date.now()}@bench.example`;
  const answer = await fetch(`${baseUrl}/v1/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify({ email, password: 'a long pass phrase for the bench' }),
  });
  const cookie = answer.headers.getSetCookie().find((line) => line.startsWith('__Host-svc_session='));
  if (answer.status !== 201 || cookie === undefined) throw new Error(`sign-up answered ${answer.status}`);
  return cookie.split(';')[0]!;
}

async function measure(env: BenchEnv, rate: number) {
  const target = await spawnTarget<ApiTargetReady>('./api-target.js', {
    ...env,
    BENCH_WORKSPACE_REQUEST_RATE: String(rate),
  });
  try {
    const { service, apiKey } = target.ready;
    const cookie = await signUp(service);
    await quietP50(service, cookie, 40); // warm-up
    const idle = await quietP50(service, cookie);
    const statuses = new Map<number, number>();
    let ended: () => void = () => {};
    const floodEnded = new Promise<void>((resolve) => {
      ended = resolve;
    });
    const flood = autocannon(
      {
        url: `${service}${READ}`,
        connections: CONNECTIONS,
        duration: 600,
        headers: { authorization: `Bearer ${apiKey}` },
      },
      () => ended(),
    );
    flood.on('response', (_client, status) => statuses.set(status, (statuses.get(status) ?? 0) + 1));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const started = performance.now();
    const during = await quietP50(service, cookie);
    const seconds = (performance.now() - started) / 1000;
    const before: Record<string, number> = Object.fromEntries(statuses);
    flood.stop();
    await Promise.race([floodEnded, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    // Counted when the samples end: answers still arriving while the flood stops are left out.
    const sent = Object.values(before).reduce((sum, n) => sum + n, 0);
    return {
      idle,
      during,
      perSecond: sent / (seconds + 1),
      refused: (before[429] ?? 0) / Math.max(1, sent),
      ran: before[200] ?? 0,
      seconds: seconds + 1,
    };
  } finally {
    await target.stop();
  }
}

export async function runReadFloodBench(backend: BenchBackend): Promise<Row[]> {
  const label = backend;
  const rows: Row[] = [];
  for (const rate of [0, DEFAULT_WORKSPACE_REQUEST_RATE]) {
    const m = await onBackend(backend, (env) => measure(env, rate));
    if (m === undefined) return [];
    const budget = rate === 0 ? 'no request budget' : `budget ${rate}/s`;
    rows.push([
      `${label}: quiet tenant's read p50, idle → while another floods reads (${CONNECTIONS} connections, ${m.perSecond.toFixed(0)}/s, ${(100 * m.refused).toFixed(0)}% refused 429), ${budget}`,
      `${m.idle.toFixed(1)} → ${m.during.toFixed(1)} ms (×${(m.during / m.idle).toFixed(1)})`,
      "none: a flood of cheap refusals is the reverse proxy's to shed",
      'info',
    ]);
    if (rate === 0) continue;
    // What the budget promises: the flood's own work stays within it, however fast it sends.
    const limit = workspaceRequestLimit(rate);
    const allowed = limit.capacity + limit.perMs * 1000 * m.seconds;
    rows.push([
      `${label}: the flood's reads that ran, in ${m.seconds.toFixed(1)} s, ${budget}`,
      `${m.ran}`,
      `≤ ${allowed.toFixed(0)} (the burst and the rate)`,
      verdict(m.ran <= allowed),
    ]);
  }
  return rows;
}
