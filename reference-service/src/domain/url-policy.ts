import { checkWebhookUrlShape } from '@svc-kit/contract';
import ipaddr from 'ipaddr.js';
import { isGlobalUnicast } from './address-policy.js';

/** Resolves a hostname to every address it has; injectable so tests choose what a name resolves to. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** A name whose DNS did not answer in time: refused as unresolved, saying so (its owner fixes DNS). */
export class ResolveTimeoutError extends Error {
  override name = 'ResolveTimeoutError';
  constructor(
    readonly hostname: string,
    readonly withinMs: number,
  ) {
    super(`${hostname} did not resolve within ${withinMs} ms`);
  }
}

/** Why a name with no usable address is refused: the same words at registration and at connect time. */
export function unresolvedReason(hostname: string, error: unknown): string {
  return error instanceof ResolveTimeoutError
    ? `the hostname ${hostname} does not resolve in time (within ${error.withinMs} ms)`
    : `the hostname ${hostname} does not resolve`;
}

/** What a target is checked against, when registered (below) and when connected to (outbound/). */
export interface TargetPolicy {
  /** Every address of a name; injectable so that tests decide what a name resolves to. */
  resolve: ResolveHost;
  /** Sandbox opt-in: also admit http(s)://localhost and 127.0.0.1 targets. */
  allowLocalhost: boolean;
}

export type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string };

export function isIpLiteral(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare);
}

/**
 * The URL rules of every outbound target at registration (webhook, integration, a contact's card): the
 * contract's rules that need no DNS (the mock applies them too), then a name whose EVERY address is globally
 * routable unicast, as the connection guard (outbound/target-policy.ts) checks again at connect time, since
 * DNS can change.
 */
export async function checkWebhookUrl(raw: string, options: TargetPolicy): Promise<UrlVerdict> {
  const shape = checkWebhookUrlShape(raw, { allowLocalhost: options.allowLocalhost });
  if (!shape.ok) return shape;
  const { url, local } = shape;
  if (local) return { ok: true, url: url.href };
  const hostname = url.hostname.toLowerCase();
  // ipaddr.js also knows IP forms the URL parser leaves as names.
  if (isIpLiteral(hostname)) return { ok: false, reason: 'url must use a hostname, not an IP address' };
  let failure: unknown;
  const addresses = await options.resolve(hostname).catch((error: unknown): string[] => {
    failure = error;
    return [];
  });
  if (addresses.length === 0) return { ok: false, reason: unresolvedReason(hostname, failure) };
  const refused = addresses.find((address) => !isGlobalUnicast(address));
  if (refused !== undefined) {
    return {
      ok: false,
      reason: `the hostname ${hostname} resolves to a private or reserved address (${refused})`,
    };
  }
  return { ok: true, url: url.href };
}
