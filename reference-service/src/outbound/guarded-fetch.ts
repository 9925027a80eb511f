import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, fetch as undiciFetch } from 'undici';
import type { TargetPolicy } from '../domain/url-policy.js';
import { guardedLookup } from './guarded-lookup.js';
import { checkTargetUrl } from './target-policy.js';

export interface GuardedFetch {
  fetch: FetchLike;
  close(): Promise<void>;
}

/**
 * The `fetch` the MCP SDK is given for every upstream request (tools, OAuth discovery, registration and
 * token calls): the same guard as webhook delivery (src/outbound/target-policy.ts). The URL is checked
 * before anything is sent, every resolved address is checked and the socket pinned to it, and redirects
 * are never followed here (the SDK follows same-origin ones itself, back through this function).
 * The body timeout is off because an SSE stream stays open between events; the SDK times out requests.
 */
export function createGuardedFetch(policy: TargetPolicy, connectTimeoutMs: number): GuardedFetch {
  const agent = new Agent({
    connect: { lookup: guardedLookup(policy), timeout: connectTimeoutMs },
    headersTimeout: connectTimeoutMs * 3,
    bodyTimeout: 0,
  });
  const guarded = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const target = checkTargetUrl(String(url), policy);
    const options = { ...init, redirect: 'manual', dispatcher: agent } as Parameters<typeof undiciFetch>[1];
    return (await undiciFetch(target, options)) as unknown as Response;
  };
  return { fetch: guarded, close: () => agent.close() };
}
