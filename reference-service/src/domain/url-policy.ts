import ipaddr from 'ipaddr.js';
import { isAllowedPort, isGlobalUnicast, isLoopbackAddress, PORT_RULE } from './address-policy.js';

/** Resolves a hostname to every address it has; injectable so tests choose what a name resolves to. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export interface UrlPolicyOptions {
  resolve: ResolveHost;
  /** Sandbox opt-in: also admit http(s)://localhost and 127.0.0.1 receivers. */
  allowLocalhost: boolean;
}

export type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string };

const MAX_URL_LENGTH = 2048;
/** The receiver hosts the sandbox opt-in admits over plain http. */
export const LOCAL_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1']);

export { isGlobalUnicast as isPublicAddress, isLoopbackAddress };

export function isIpLiteral(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare);
}

/**
 * The URL rules of every outbound target at registration (createWebhook, createIntegration, a contact's
 * card): https, a hostname rather than an IP literal, an allowed port, and a name whose EVERY address is
 * globally routable unicast (domain/address-policy.ts), the same rule the connection guard applies, so a
 * target is never accepted here only to be refused on every delivery. DNS can change after registration,
 * so the guard (outbound/target-policy.ts) checks the addresses it actually connects to as well.
 */
export async function checkWebhookUrl(raw: string, options: UrlPolicyOptions): Promise<UrlVerdict> {
  if (raw.length > MAX_URL_LENGTH)
    return { ok: false, reason: `url must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url is not an absolute URL' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'url must not carry credentials' };
  }
  const hostname = url.hostname.toLowerCase();
  if (
    options.allowLocalhost &&
    LOCAL_HOSTS.has(hostname) &&
    (url.protocol === 'http:' || url.protocol === 'https:')
  ) {
    return { ok: true, url: url.href };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'url must use https' };
  if (isIpLiteral(hostname)) return { ok: false, reason: 'url must use a hostname, not an IP address' };
  if (!hostname.includes('.')) return { ok: false, reason: 'url must use a fully qualified hostname' };
  if (!isAllowedPort(url)) return { ok: false, reason: `url is refused: ${PORT_RULE}` };
  let addresses: string[];
  try {
    addresses = await options.resolve(hostname);
  } catch {
    return { ok: false, reason: `the hostname ${hostname} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `the hostname ${hostname} does not resolve` };
  const refused = addresses.find((address) => !isGlobalUnicast(address));
  if (refused !== undefined) {
    return {
      ok: false,
      reason: `the hostname ${hostname} resolves to a private or reserved address (${refused})`,
    };
  }
  return { ok: true, url: url.href };
}
