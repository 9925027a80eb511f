/**
 * The API benchmark's equal-load slice: requests sent open-loop at a fixed rate, evenly spaced, whatever
 * the answers, so that a route and its anchors are timed under the same offered load.
 *
 * Not autocannon's `overallRate`: that option is a budget per connection per second (its httpClient.js
 * resets a counter each second), so each connection runs closed-loop at full speed until the second's
 * budget is spent and then idles. At half the saturation rate that is half a second of saturation, then
 * nothing; its latencies are the closed loop's again (a 1 ms server: p50 9.8 ms paced by it, 9.9 ms
 * unpaced). Here each request has its own moment, on at most the same 10 connections (undici's pool; a
 * request waiting for a free one is timed from when it was sent for, so queueing counts).
 */
import { performance } from 'node:perf_hooks';
import { type Dispatcher, Pool } from 'undici';
import { CONNECTIONS, type Load, type LoadOptions, percentile } from './load.js';

interface Call {
  method: Dispatcher.HttpMethod;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** The calls `options` names (cycled), as load.ts passes them to autocannon. */
function callsOf(url: URL, options: LoadOptions): Call[] {
  const path = `${url.pathname}${url.search}`;
  if (!options.requests)
    return [{ method: 'GET', path, ...(options.headers ? { headers: options.headers } : {}) }];
  return options.requests.map((request) => ({
    method: (request.method ?? 'GET') as Dispatcher.HttpMethod,
    path: request.path ?? path,
    ...(request.headers ? { headers: request.headers as Record<string, string> } : {}),
    ...(typeof request.body === 'string' ? { body: request.body } : {}),
  }));
}

/** `paced(url, seconds, rate, options)`, reading the target process's CPU time so far with `cpuOf`. */
export function pacedLoader(cpuOf: () => Promise<number>) {
  return async function paced(url: string, seconds: number, rate: number, options: LoadOptions = {}) {
    const target = new URL(url);
    const calls = callsOf(target, options);
    const pool = new Pool(target.origin, {
      connections: CONNECTIONS,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    let next = 0;
    let failures = 0;
    const times: number[] = [];
    const send = async (timed: boolean) => {
      const call = calls[next++ % calls.length]!;
      const sentAt = performance.now();
      try {
        const response = await pool.request(call);
        await response.body.text();
        if (response.statusCode >= 300) failures++;
        if (timed) times.push(performance.now() - sentAt);
      } catch {
        failures++;
      }
    };
    try {
      // Every connection open before the clock starts: a first request would otherwise pay for a connect.
      await Promise.all(Array.from({ length: CONNECTIONS }, () => send(false)));
      failures = 0;
      const cpuBefore = await cpuOf();
      const interval = 1000 / rate;
      const total = Math.round(rate * seconds);
      const pending: Promise<void>[] = [];
      const start = performance.now();
      // Timers fire about every millisecond; each tick sends every request whose moment has come.
      await new Promise<void>((resolve) => {
        const tick = () => {
          const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
          while (pending.length < due) pending.push(send(true));
          if (pending.length < total) setTimeout(tick, 1);
          else resolve();
        };
        tick();
      });
      await Promise.all(pending);
      const elapsed = (performance.now() - start) / 1000;
      const sorted = Float64Array.from(times).sort();
      return {
        rate: times.length / elapsed,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        failures,
        cpu: ((await cpuOf()) - cpuBefore) / Math.max(1, times.length),
      } satisfies Load;
    } finally {
      await pool.close();
    }
  };
}
