/**
 * The delivery bench's receiver in a process of its own (forked by delivery.ts), so that the worker's
 * process and the raw loop's spend nothing on receiving: answers every POST with `ok` and reports each
 * arrival's event id and wall-clock time (sub-millisecond, `performance.timeOrigin + now`) to the parent,
 * in batches. `BENCH_RECEIVER_DELAY_MS` holds each answer that long, as a receiver across a network does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { HEADER_NAMES } from '@svc-kit/webhooks';

const DELAY_MS = Number(process.env.BENCH_RECEIVER_DELAY_MS ?? 0);
let batch: [string, number][] = [];
let timer: NodeJS.Timeout | undefined;
const flush = () => {
  timer = undefined;
  if (batch.length === 0) return;
  process.send?.({ arrivals: batch });
  batch = [];
};

const server = createServer((req, res) => {
  const at = performance.timeOrigin + performance.now();
  const eventId = String(req.headers[HEADER_NAMES.eventId]);
  req.resume();
  req.on('end', () => (DELAY_MS > 0 ? setTimeout(() => res.end('ok'), DELAY_MS) : res.end('ok')));
  batch.push([eventId, at]);
  if (batch.length >= 512) flush();
  else timer ??= setTimeout(flush, 5);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.on('disconnect', () => {
  clearTimeout(timer);
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
