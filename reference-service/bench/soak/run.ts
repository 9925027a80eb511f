/**
 * The soak: the real service (its own process, see ../api/target.ts) under a mixed load at a fixed rate
 * for minutes: reads (listWebhooks, listWebhookDeliveries, listContacts), a write (setWebhookStatus,
 * resuming the receiver's endpoint, which also undoes the auto-pauses the failing phases cause) and events
 * (the sandbox trigger), delivered to a receiver that cycles through ok, slow, failing and down. Every
 * interval it records throughput and p50 / p99 per route, the delivery lag, the service's RSS and
 * event-loop delay; at the end it waits for the outbox to drain and checks that nothing was lost: every
 * outbox row ended `delivered` or `failed`, every `delivered` row's event reached the receiver exactly once
 * with a 2xx, and no event got a 2xx twice. Writes a PNG chart and a Markdown summary; fails (exit code 1)
 * on a loss or when RSS grew more than 10 % from the first interval to the last.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { ApiTargetReady } from '../api/run.js';
import type { BenchEnv } from '../support/backends.js';
import { percentile } from '../support/stats.js';
import { spawnTarget } from '../support/target-process.js';
import { type Sample, soakSvg, svgToPng } from './chart.js';
import { type ReceiverMood, startSoakReceiver } from './receiver.js';

export interface SoakOptions {
  minutes: number;
  /** Seconds between two samples (60 by default: one per minute). */
  intervalSeconds: number;
  /** Where soak.png and soak.md are written. */
  outDir: string;
  backend: string;
}

/** Requests per second of each kind. */
const RATES = {
  listWebhooks: 20,
  listWebhookDeliveries: 10,
  listContacts: 10,
  setWebhookStatus: 2,
  'trigger event': 20,
} as const;
type Route = keyof typeof RATES;
const TICK_MS = 100;
/** The receiver's phases, each a sixth of a cycle of two minutes (shorter runs see a shorter cycle). */
const MOODS: readonly ReceiverMood[] = ['ok', 'slow', 'ok', 'failing', 'ok', 'down'];
const MAX_GROWTH = 0.1;

/** The soak's percentiles of unsorted `values`; 0 for an interval that recorded none. */
function percentileOf(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return percentile(sorted, p);
}

export async function runSoak(env: BenchEnv, options: SoakOptions): Promise<boolean> {
  const receiver = await startSoakReceiver();
  const target = await spawnTarget<ApiTargetReady>('./api-target.js', {
    ...env,
    SVC_ALLOW_LOCALHOST_WEBHOOKS: '1',
  });
  const agent = new Agent({ connections: 20 });
  try {
    const t = target.ready;
    await fetch(`${t.anchors}/prepare-events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url }),
    });
    const auth = { authorization: `Bearer ${t.apiKey}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const calls: Record<
      Route,
      () => { path: string; method: 'GET' | 'POST' | 'PATCH'; headers: Record<string, string>; body?: string }
    > = {
      listWebhooks: () => ({ path: '/v1/workspace/webhooks', method: 'GET', headers: auth }),
      listWebhookDeliveries: () => ({
        path: '/v1/workspace/webhooks/whk_benchreceiver/deliveries?limit=100',
        method: 'GET',
        headers: auth,
      }),
      listContacts: () => ({ path: `/v1/identities/${t.identity}/contacts`, method: 'GET', headers: auth }),
      setWebhookStatus: () => ({
        path: '/v1/workspace/webhooks/whk_benchreceiver',
        method: 'PATCH',
        headers: json,
        body: JSON.stringify({ status: 'active' }),
      }),
      'trigger event': () => ({
        path: '/sandbox/events',
        method: 'POST',
        headers: json,
        body: JSON.stringify({ type: 'integration.created' }),
      }),
    };
    const routes = Object.keys(RATES) as Route[];
    let latencies = Object.fromEntries(routes.map((r) => [r, [] as number[]])) as Record<Route, number[]>;
    const errors: string[] = [];
    let emitted = 0;
    let inFlight = 0;
    let skipped = 0;
    const fire = (route: Route) => {
      if (inFlight >= 200) {
        skipped++;
        return;
      }
      inFlight++;
      const call = calls[route]();
      const started = performance.now();
      request(`${t.service}${call.path}`, {
        dispatcher: agent,
        method: call.method,
        headers: call.headers,
        ...(call.body === undefined ? {} : { body: call.body }),
      })
        .then(async (response) => {
          await response.body.text();
          latencies[route].push(performance.now() - started);
          if (response.statusCode >= 300) errors.push(`${route}: ${response.statusCode}`);
          else if (route === 'trigger event') emitted++;
        })
        .catch((error: unknown) => errors.push(`${route}: ${(error as Error).message}`))
        .finally(() => inFlight--);
    };

    const totalMs = options.minutes * 60_000;
    const intervalMs = options.intervalSeconds * 1_000;
    const phaseMs = Math.min(20_000, totalMs / MOODS.length / 2);
    const started = performance.now();
    const samples: Sample[] = [];
    const intervalMoods = new Set<ReceiverMood>();
    const credit = Object.fromEntries(routes.map((r) => [r, 0])) as Record<Route, number>;
    let nextSample = intervalMs;
    let lastSampleAt = 0;
    /** Closes an interval: its rates, latencies, lag, memory and loop delay. */
    const sample = async (elapsed: number) => {
      const seconds = (elapsed - lastSampleAt) / 1000;
      const memory = (await (await fetch(`${t.anchors}/rss`)).json()) as {
        rss: number;
        loopDelayP99: number;
      };
      const lags = receiver.takeLags();
      samples.push({
        at: Math.round(elapsed / 1000),
        rate: Object.fromEntries(routes.map((r) => [r, latencies[r].length / seconds])),
        p50: Object.fromEntries(routes.map((r) => [r, percentileOf(latencies[r], 50)])),
        p99: Object.fromEntries(routes.map((r) => [r, percentileOf(latencies[r], 99)])),
        lagP50: percentileOf(lags, 50),
        lagP99: percentileOf(lags, 99),
        rssMb: memory.rss / 1048576,
        loopDelayP99: memory.loopDelayP99,
        receiver: [...intervalMoods].join(', '),
      });
      intervalMoods.clear();
      latencies = Object.fromEntries(routes.map((r) => [r, [] as number[]])) as Record<Route, number[]>;
      lastSampleAt = elapsed;
      const last = samples.at(-1)!;
      console.log(
        `soak ${last.at} s: receiver ${last.receiver}, RSS ${last.rssMb.toFixed(0)} MB, lag p99 ${last.lagP99.toFixed(0)} ms, ` +
          routes
            .map((r) => `${r} ${last.rate[r]!.toFixed(0)}/s p99 ${last.p99[r]!.toFixed(0)} ms`)
            .join(', '),
      );
    };
    while (performance.now() - started < totalMs) {
      const elapsed = performance.now() - started;
      const mood = MOODS[Math.floor(elapsed / phaseMs) % MOODS.length]!;
      await receiver.setMood(mood);
      intervalMoods.add(mood);
      for (const route of routes) {
        credit[route] += (RATES[route] * TICK_MS) / 1000;
        while (credit[route] >= 1) {
          credit[route] -= 1;
          fire(route);
        }
      }
      if (elapsed >= nextSample) {
        await sample(elapsed);
        nextSample += intervalMs;
      }
      await new Promise((resolveTick) => setTimeout(resolveTick, TICK_MS));
    }

    // The last interval (shorter when the run is not a whole number of intervals) is closed too.
    const ended = performance.now() - started;
    if (ended - lastSampleAt >= 1_000) await sample(ended);

    // Drain: the receiver answers again, the endpoint is resumed, the outbox empties.
    await receiver.setMood('ok');
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 50));
    await request(`${t.service}/v1/workspace/webhooks/whk_benchreceiver`, {
      dispatcher: agent,
      method: 'PATCH',
      headers: json,
      body: JSON.stringify({ status: 'active' }),
    }).then((response) => response.body.text());
    type Check = {
      byStatus: Record<string, number>;
      delivered: string[];
      events: number;
      rows: number;
      distinctEvents: number;
    };
    let check: Check;
    const drainDeadline = Date.now() + 180_000;
    for (;;) {
      check = (await (await fetch(`${t.anchors}/soak-check`)).json()) as Check;
      if (
        ((check.byStatus.pending ?? 0) === 0 && (check.byStatus.sending ?? 0) === 0) ||
        Date.now() > drainDeadline
      )
        break;
      await new Promise((r) => setTimeout(r, 500));
    }

    const problems: string[] = [];
    const stuck = (check.byStatus.pending ?? 0) + (check.byStatus.sending ?? 0);
    if (stuck > 0) problems.push(`${stuck} deliveries still pending or sending 180 s after the load stopped`);
    if ((check.byStatus.abandoned ?? 0) > 0)
      problems.push(`${check.byStatus.abandoned} deliveries abandoned`);
    const deliveredSet = new Set(check.delivered);
    const missing = check.delivered.filter((id) => (receiver.answeredOk.get(id) ?? 0) === 0).length;
    if (missing > 0) problems.push(`${missing} events logged delivered never reached the receiver`);
    const twice = [...receiver.answeredOk.values()].filter((n) => n > 1).length;
    if (twice > 0) problems.push(`${twice} events reached the receiver more than once`);
    const unlogged = [...receiver.answeredOk.keys()].filter((id) => !deliveredSet.has(id)).length;
    if (unlogged > 0) problems.push(`${unlogged} events answered 2xx but not logged delivered`);
    if (check.events !== emitted) {
      problems.push(`${emitted} events accepted by the trigger route, ${check.events} recorded`);
    }
    // Exactly once: one delivery row at most per accepted event, whatever its outcome (an event accepted
    // while the failing receiver had its endpoint auto-paused gets none: a paused endpoint is not owed it).
    if (check.rows !== check.distinctEvents)
      problems.push(`${check.rows - check.distinctEvents} events have more than one delivery row`);
    if (check.distinctEvents > emitted)
      problems.push(`${emitted} events accepted, ${check.distinctEvents} with a delivery row`);
    if (samples.length < 2)
      problems.push(`${samples.length} interval(s) recorded: the run must last at least two intervals`);
    const first = samples[0]?.rssMb ?? 0;
    const lastRss = samples.at(-1)?.rssMb ?? 0;
    const growth = first > 0 ? lastRss / first - 1 : 0;
    if (growth > MAX_GROWTH)
      problems.push(`RSS grew ${(growth * 100).toFixed(1)} % (first interval to last)`);
    const failedCalls = errors.length;

    const title = `Soak on ${options.backend}: ${options.minutes} min, receiver ok / slow / failing / down`;
    await mkdir(options.outDir, { recursive: true });
    const png = join(options.outDir, 'soak.png');
    await writeFile(png, svgToPng(soakSvg(title, samples)));
    const lines = [
      `# ${title}`,
      '',
      `Load per second: ${routes.map((r) => `${RATES[r]} ${r}`).join(', ')}. Receiver phases of ${Math.round(phaseMs / 1000)} s: ${MOODS.join(', ')}.`,
      '',
      '| at | receiver | RSS | loop delay p99 | lag p50 / p99 | ' +
        routes.map((r) => `${r} req/s, p50 / p99`).join(' | ') +
        ' |',
      `|---|---|---|---|---|${routes.map(() => '---').join('|')}|`,
      ...samples.map(
        (s) =>
          `| ${s.at} s | ${s.receiver} | ${s.rssMb.toFixed(0)} MB | ${s.loopDelayP99.toFixed(1)} ms | ${s.lagP50.toFixed(0)} / ${s.lagP99.toFixed(0)} ms | ` +
          routes
            .map((r) => `${s.rate[r]!.toFixed(1)}, ${s.p50[r]!.toFixed(1)} / ${s.p99[r]!.toFixed(1)} ms`)
            .join(' | ') +
          ' |',
      ),
      '',
      `Events accepted: ${emitted}; outbox at the end: ${JSON.stringify(check.byStatus)}; events answered 2xx by the receiver: ${receiver.answeredOk.size}.`,
      `Calls refused or failed during the load: ${failedCalls}${failedCalls ? ` (first: ${errors.slice(0, 3).join('; ')})` : ''}; ticks skipped (200 in flight): ${skipped}.`,
      `RSS from the first interval to the last: ${first.toFixed(0)} → ${lastRss.toFixed(0)} MB (${(growth * 100).toFixed(1)} %, bound ${MAX_GROWTH * 100} %).`,
      '',
      problems.length === 0
        ? '**PASS**: nothing lost, memory within bounds.'
        : `**FAIL**: ${problems.join('; ')}.`,
      '',
    ];
    await writeFile(join(options.outDir, 'soak.md'), lines.join('\n'));
    console.log(`\n${lines.join('\n')}`);
    console.log(`chart: ${resolve(png)}`);
    return problems.length === 0;
  } finally {
    await agent.close();
    await target.stop();
    await receiver.close();
  }
}
