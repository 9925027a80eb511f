/**
 * The API benchmark: autocannon with 10 connections against the real service (a process of its own, see
 * target.ts) beside the anchors in the same process (floors.ts): a bare Fastify route with no query (the
 * ceiling of the machine for an HTTP answer) and bare routes running one query of the same rows, or one
 * UPDATE (the floor of a request that needs the database once), each also after the key lookup the
 * service runs before a handler ("floor + key lookup"). Issue 43's targets are judged against the
 * one-query floor; a MISS that the route would not have against floor + key lookup is marked as the
 * simple form's (issue 43 asks for the figures, not for the cleverness back), never turned into a PASS.
 * Each service route is measured right after its anchors, in alternating slices (median of three),
 * because a shared machine's speed drifts within a minute. Latencies are fractional ms (see load.ts).
 *
 * Rates are taken closed-loop at saturation, p99s also at equal load. In a closed loop latency follows
 * from the rate (Little's law: mean latency ≈ connections ÷ rate), so a saturated p99 within 1.5× of the
 * floor's is a second rate bound of about 0.67×, which contradicts the write's own 0.4× target. Issue
 * 43's p99 bound is therefore judged on paced slices (paced.ts) that offer the route and its anchors the
 * same rate, half the route's median saturated rate so that each has headroom, again three alternating
 * slices, the median p99 of each; the saturated p99s stay in the table as information.
 */
import type autocannon from 'autocannon';
import { flag, type Row } from '../support/table.js';
import { spawnTarget } from '../support/target-process.js';
import { cpuRatio, type Load, type LoadOptions, loader, median } from './load.js';
import { pacedLoader } from './paced.js';
import { anchorRow, bareRow, keyedRow, type Measured, READ_RATIO, routeRow, WRITE_RATIO } from './verdict.js';

export { API_HEADER } from './verdict.js';

export interface ApiTargetReady {
  service: string;
  anchors: string;
  apiKey: string;
  endpointId: string;
  toggleId: string;
  identity: string;
  backend: string;
}

/** `--route NAME`: only the routes whose name contains NAME (to compare one change before and after). */
const measured = (name: string) => name.includes(flag('route', ''));

/** Rounds of a few seconds each, anchors and route alternating, so that a drift of the machine hits all. */
const ROUNDS = 3;

/** Runs the whole comparison on one backend; DATABASE_URL in `env` picks PostgreSQL. */
export async function runApiBench(env: Record<string, string | undefined>, seconds: number): Promise<Row[]> {
  const target = await spawnTarget<ApiTargetReady>('./api-target.js', env);
  try {
    const t = target.ready;
    const get = async <T>(path: string) => (await (await fetch(`${t.anchors}${path}`)).json()) as T;
    const cpuOf = async () => (await get<{ micros: number }>('/cpu')).micros;
    const load = loader(cpuOf);
    const paced = pacedLoader(cpuOf);
    const auth = { authorization: `Bearer ${t.apiKey}` };
    const slice = Math.max(1, Math.round(seconds / ROUNDS));
    /** Each of `runs`, warmed, then measured in alternating slices (the median of each). */
    const alternate = async (runs: [string, LoadOptions][]): Promise<Load[]> => {
      for (const [url, options] of runs) await load(url, 1, options);
      const loads: Load[][] = runs.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, [url, options]] of runs.entries()) loads[i]!.push(await load(url, slice, options));
      }
      return loads.map((each) => median(each));
    };
    /** The same `runs` paced at `rate`, in alternating slices (the median p99 of each). */
    const alternatePaced = async (runs: [string, LoadOptions][], rate: number): Promise<Load[]> => {
      const loads: Load[][] = runs.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (const [i, [url, options]] of runs.entries()) {
          loads[i]!.push(await paced(url, slice, rate, options));
        }
      }
      return loads.map((each) => median(each, 'p99'));
    };
    /**
     * The floor, the same floor after the service's key lookup, the route, each sent the same requests
     * (`options` of the anchor's path: autocannon's `requests` name their path), at saturation and then
     * paced at half the route's saturated rate; and the share of the service's key lookups answered from
     * memory meanwhile.
     */
    const triple = async (floorPath: string, options: (path: string) => LoadOptions, route: string) => {
      type Lookups = { hits: number; misses: number };
      const before = await get<Lookups>('/key-lookups');
      const runs: [string, LoadOptions][] = [
        [`${t.anchors}${floorPath}`, options(floorPath)],
        [`${t.anchors}/keyed${floorPath}`, options(`/keyed${floorPath}`)],
        [`${t.service}${route}`, options(route)],
      ];
      const sat = await alternate(runs);
      const even = await alternatePaced(runs, sat[2]!.rate / 2);
      const after = await get<Lookups>('/key-lookups');
      const hits = after.hits - before.hits;
      const all = hits + after.misses - before.misses;
      const [floor, keyed, service] = sat.map((load, i): Measured => ({ sat: load, even: even[i]! }));
      return {
        floor: floor!,
        keyed: keyed!,
        service: service!,
        memory: `${Math.round((100 * hits) / Math.max(1, all))}% held in memory`,
      };
    };
    // Every route once before anything is measured: the first pair otherwise paid for the service's
    // just-in-time compilation and the database's first plans (0.22× where the same pair later ran 0.7×).
    for (const path of [
      '/v1/workspace/webhooks',
      `/v1/identities/${t.identity}/contacts`,
      `/v1/workspace/webhooks/${t.endpointId}/deliveries?limit=100`,
    ]) {
      await load(`${t.service}${path}`, 2, { headers: auth });
    }
    const rows: Row[] = [];
    const [bare] = (await alternate([[`${t.anchors}/bare`, {}]])) as [Load];
    rows.push(bareRow(bare));

    const reads: [string, string, string][] = [
      ['listWebhooks (10 endpoints)', '/query/webhooks', '/v1/workspace/webhooks'],
      ['listContacts (100 rows)', '/query/contacts', `/v1/identities/${t.identity}/contacts`],
      [
        'listWebhookDeliveries (100 rows)',
        '/query/deliveries',
        `/v1/workspace/webhooks/${t.endpointId}/deliveries?limit=100`,
      ],
    ];
    for (const [name, floorPath, servicePath] of reads) {
      if (!measured(name)) continue;
      const { floor, keyed, service, memory } = await triple(
        floorPath,
        () => ({ headers: auth }),
        servicePath,
      );
      rows.push(anchorRow('  floor: one query of the same rows', floor));
      rows.push(routeRow(name, service, floor, keyed, { bare, cpu: cpuRatio(floor.sat, service.sat) }));
      rows.push(keyedRow(service, keyed, READ_RATIO, memory));
    }

    const toggle = (path: string): autocannon.Request[] =>
      ['paused', 'active'].map((status) => ({
        method: 'PATCH',
        path,
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ status }),
      }));
    if (!measured('setWebhookStatus')) return rows;
    const {
      floor,
      keyed,
      service: write,
      memory,
    } = await triple('/update', (to) => ({ requests: toggle(to) }), `/v1/workspace/webhooks/${t.toggleId}`);
    rows.push(anchorRow('  floor: one UPDATE', floor));
    rows.push(
      routeRow('setWebhookStatus, toggling', write, floor, keyed, { cpu: cpuRatio(floor.sat, write.sat) }),
    );
    rows.push(keyedRow(write, keyed, WRITE_RATIO, memory));
    return rows;
  } finally {
    await target.stop();
  }
}
