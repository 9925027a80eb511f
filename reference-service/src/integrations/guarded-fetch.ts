import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { checkTargetUrl, resolveCheckedAddresses, type TargetPolicy } from '../outbound/target-policy.js';

export interface GuardedFetch {
  fetch: FetchLike;
  close(): Promise<void>;
}

function guardedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveCheckedAddresses(hostname, policy).then(
      (addresses) => {
        const entries: LookupAddress[] = addresses.map((address) => ({
          address,
          family: address.includes(':') ? 6 : 4,
        }));
        if (options.all) {
          callback(null, entries);
          return;
        }
        const first = entries[0];
        if (!first) callback(new Error('no address') as NodeJS.ErrnoException, '');
        else callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, ''),
    );
  };
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
