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
 * The `fetch` the MCP SDK is given for every upstream request, under the delivery's guard (target-policy.ts):
 * the URL checked first, every resolved address checked and pinned, redirects never followed here (the SDK
 * follows same-origin ones back through it). No body timeout: an SSE stream stays open between events, and
 * the SDK times requests out.
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
