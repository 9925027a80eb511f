/**
 * One measurement of the API benchmark: autocannon with 10 connections on one URL for a few seconds, with
 * the rate, the latency percentiles and the target process's CPU time per request.
 *
 * autocannon's own percentiles (`result.latency.p99`) come from an HDR histogram of whole milliseconds:
 * each response time is truncated as it is recorded (4.0 to 4.99 ms all read 4), too coarse for a 1.5×
 * bound on floors of 4 or 5 ms. Its `response` event hands over each response time as measured (a
 * fraction of a millisecond, from `process.hrtime`), so the percentiles here are taken from those.
 */
import autocannon from 'autocannon';
import { percentile } from '../support/stats.js';

export interface Load {
  rate: number;
  /** In ms, with fractions (see above). */
  p50: number;
  p99: number;
  failures: number;
  /** CPU time of the target process per request, in µs: unlike rates, barely moved by other load. */
  cpu: number;
}

export interface LoadOptions {
  headers?: Record<string, string>;
  requests?: autocannon.Request[];
}

const CONNECTIONS = 10;

/** `load(url, seconds, options)`, reading the target process's CPU time so far with `cpuOf`. */
export function loader(cpuOf: () => Promise<number>) {
  return async function load(url: string, seconds: number, options: LoadOptions = {}): Promise<Load> {
    const cpuBefore = await cpuOf();
    // Every response, as autocannon's own histogram takes them (whatever the status).
    const times: number[] = [];
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url,
          connections: CONNECTIONS,
          duration: seconds,
          ...(options.headers ? { headers: options.headers } : {}),
          ...(options.requests ? { requests: options.requests } : {}),
        },
        (error: unknown, done) => (error ? reject(error) : resolve(done)),
      );
      instance.on('response', (_client, _status, _bytes, ms) => times.push(ms));
    });
    const cpu = ((await cpuOf()) - cpuBefore) / Math.max(1, result.requests.total);
    const sorted = Float64Array.from(times).sort();
    return {
      rate: result.requests.average,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      failures: result.non2xx + result.errors + result.timeouts,
      cpu,
    };
  };
}

/** The round with the median rate (its p99 with it); failures summed over all rounds. */
export function median(loads: readonly Load[]): Load {
  const sorted = [...loads].sort((x, y) => x.rate - y.rate);
  const middle = sorted[Math.floor(sorted.length / 2)]!;
  return { ...middle, failures: loads.reduce((sum, load) => sum + load.failures, 0) };
}

export const rateFmt = (load: Load) => `${Math.round(load.rate)} req/s`;
export const msFmt = (ms: number) => `${ms.toFixed(1)} ms`;
export const cpuFmt = (load: Load) => `${Math.round(load.cpu)} µs`;
/** The floor's CPU per request ÷ the route's: the ratio the rates would show if the process were the limit. */
export const cpuRatio = (floor: Load, route: Load) => `${(floor.cpu / route.cpu).toFixed(2)}× by CPU`;
