import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import ipaddr from 'ipaddr.js';
import { limitedAddress } from '../domain/sign-in-limits.js';
import type { ConnectionLimits } from './connection-limits.js';

/** How often Node looks for requests past their deadline (its own default is 30 s, as long as one). */
export const CONNECTIONS_CHECK_MS = 1_000;

/** At most one warning a minute about refused connections, however many there are. */
const WARN_EVERY_MS = 60_000;

/** Whether `ip` is one of the configured proxies (addresses or CIDR ranges). */
function proxyMatcher(trustedProxies: readonly string[]): (ip: string) => boolean {
  const ranges = trustedProxies.map((entry) =>
    entry.includes('/') ? ipaddr.parseCIDR(entry) : ([ipaddr.parse(entry), -1] as const),
  );
  if (ranges.length === 0) return () => false;
  return (ip) => {
    if (!ipaddr.isValid(ip)) return false;
    const address = ipaddr.process(ip);
    return ranges.some(([range, bits]) => {
      const base = range.kind() === 'ipv6' ? ipaddr.process(range.toString()) : range;
      if (base.kind() !== address.kind()) return false;
      return bits < 0 ? base.toString() === address.toString() : address.match(base, bits);
    });
  };
}

/**
 * Bounds what connections can hold on the public port: the request's deadline, an inactivity timeout, a cap
 * on open connections and one per client address (the socket's peer, IPv6 per /64 as the limits count it; a
 * trusted proxy carries many clients and has only the overall cap). A connection over a cap is closed before
 * anything of it is read.
 */
export function guardConnections(
  server: Server,
  limits: ConnectionLimits,
  trustedProxies: readonly string[],
  logger: FastifyBaseLogger,
): void {
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = limits.headersTimeoutMs;
  server.setTimeout(limits.connectionTimeoutMs);
  server.maxConnections = limits.maxConnections;
  const isProxy = proxyMatcher(trustedProxies);
  const open = new Map<string, number>();
  let refused = 0;
  let warnedAt = -Infinity;
  const warn = (why: string) => {
    refused++;
    const now = performance.now();
    if (now - warnedAt < WARN_EVERY_MS) return;
    warnedAt = now;
    logger.warn({ refused, why }, 'connections refused at the connection caps');
    refused = 0;
  };
  server.on('drop', () => warn('SVC_MAX_CONNECTIONS'));
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress;
    if (ip === undefined || isProxy(ip)) return;
    const key = limitedAddress(ip);
    const count = (open.get(key) ?? 0) + 1;
    if (count > limits.maxConnectionsPerAddress) {
      warn('SVC_MAX_CONNECTIONS_PER_ADDRESS');
      socket.destroy();
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left <= 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
