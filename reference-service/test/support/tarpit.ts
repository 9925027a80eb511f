import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { HEADER_NAMES } from '@svc-kit/webhooks';

export interface TarpitArrival {
  deliveryId: string;
  eventId: string;
  path: string;
  /** `performance.now()` when the request arrived. */
  at: number;
}

/**
 * A webhook receiver on loopback that answers `200` at once and then sends one byte every `tickMs`, ending
 * the answer after `holdMs` (never, when unset: the sender's timeout ends it): a 2xx, so no failure run
 * starts, that holds the sender's socket as long as it can. `holdMs: 0` makes a plain, quick receiver.
 * Counts the requests open per path, and the most seen at once.
 */
export async function startTarpit(options: { holdMs?: number; tickMs?: number } = {}) {
  const tickMs = options.tickMs ?? 1_000;
  const arrivals: TarpitArrival[] = [];
  const open = new Map<string, number>();
  const most = new Map<string, number>();
  let openAll = 0;
  let mostAll = 0;
  const waiting = new Map<string, (at: number) => void>();
  const server = createServer((req, res: ServerResponse) => {
    const path = req.url ?? '/';
    const arrival = {
      deliveryId: String(req.headers[HEADER_NAMES.delivery]),
      eventId: String(req.headers[HEADER_NAMES.eventId]),
      path,
      at: performance.now(),
    };
    arrivals.push(arrival);
    waiting.get(arrival.eventId)?.(arrival.at);
    open.set(path, (open.get(path) ?? 0) + 1);
    most.set(path, Math.max(most.get(path) ?? 0, open.get(path)!));
    mostAll = Math.max(mostAll, ++openAll);
    req.resume();
    if (options.holdMs === 0) {
      res.end('ok');
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('.');
      const ticking = setInterval(() => res.write('.'), tickMs);
      const ending = options.holdMs === undefined ? undefined : setTimeout(() => res.end(), options.holdMs);
      res.on('close', () => {
        clearInterval(ticking);
        clearTimeout(ending);
      });
    }
    res.on('close', () => {
      open.set(path, open.get(path)! - 1);
      openAll--;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    arrivals,
    /** Requests open now (on `path`, or on all). */
    open: (path?: string) => (path === undefined ? openAll : (open.get(path) ?? 0)),
    /** The most requests open at once (on `path`, or on all). */
    most: (path?: string) => (path === undefined ? mostAll : (most.get(path) ?? 0)),
    /** Resolves with the arrival time of the event's first request. */
    arrivalOf(eventId: string): Promise<number> {
      const seen = arrivals.find((arrival) => arrival.eventId === eventId);
      if (seen) return Promise.resolve(seen.at);
      return new Promise((resolve) => waiting.set(eventId, resolve));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Tarpit = Awaited<ReturnType<typeof startTarpit>>;
