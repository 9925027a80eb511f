import { type OutboundLimit, urlHost } from '@svc-kit/contract';
import { budget } from './door-limits.js';

/**
 * Exchanges with MCP upstreams, per destination host, from every workspace together: a contact's tool
 * call, a listing (createIntegration, getExposure, the OAuth callback) and an OAuth call each spend one
 * before anything is dialled, so a host name many tenants point at (or that later resolves to someone
 * else) gets a bounded stream from the service whoever asks. Kept in `outbound_budgets` beside the
 * delivery pace, so the bound holds across instances. One exchange is a handful of requests (initialize,
 * its notification, the call or a listing, the stream the transport opens). The numbers and why: the
 * open-choices page (Integrations).
 */

const SECOND = 1_000;

export const EXCHANGES_PER_HOST = budget(120, SECOND / 10, 'exchanges with this MCP host');

/**
 * One workspace's share of a host's budget: a quarter of its pace, so a greedy tenant never takes the
 * whole of a server others share (the built-in catalogue's, say); its burst is the workspace's own budget
 * of exchanges (UPSTREAM_EXCHANGES), so the share never refuses what that one lets through at once.
 */
export const EXCHANGES_PER_WORKSPACE_HOST = budget(
  60,
  SECOND / 2.5,
  'exchanges of this workspace with this MCP host',
);

export interface UpstreamHostBudgets {
  perHost: OutboundLimit;
  perWorkspaceOnHost: OutboundLimit;
}

export const UPSTREAM_HOST_BUDGETS: UpstreamHostBudgets = {
  perHost: EXCHANGES_PER_HOST,
  perWorkspaceOnHost: EXCHANGES_PER_WORKSPACE_HOST,
};

/**
 * The host an upstream's endpoint is dialled at, as every per-host rule compares hosts (the contract's
 * `urlHost`). Unlike deliveries, loopback names count too: they are a sandbox opt-in, and a bound that
 * skipped them would be untestable. An integration's endpoint is an http(s) URL from its creation on.
 */
export function upstreamHost(endpoint: string): string {
  const host = urlHost(endpoint);
  if (host === undefined) throw new TypeError('an MCP endpoint is an http(s) URL');
  return host;
}

export const hostBucket = (host: string) => `mcp-host:${host}`;
export const workspaceHostBucket = (workspaceId: string, host: string) =>
  `mcp-workspace-host:${workspaceId}:${host}`;
