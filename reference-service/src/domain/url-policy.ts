import { checkWebhookUrlShape, LOCAL_WEBHOOK_HOSTS } from '@svc-kit/contract';
import ipaddr from 'ipaddr.js';

/** Resolves a hostname to every address it has; injectable so tests choose what a name resolves to. */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export interface UrlPolicyOptions {
  resolve: ResolveHost;
  /** Sandbox opt-in: also admit http(s)://localhost and 127.0.0.1 receivers. */
  allowLocalhost: boolean;
}

export type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string };

/** The receiver hosts the sandbox opt-in admits over plain http (the contract's list). */
export const LOCAL_HOSTS: ReadonlySet<string> = LOCAL_WEBHOOK_HOSTS;

/**
 * Only globally routable unicast addresses are public. ipaddr.js names every special range (private,
 * loopback, linkLocal, carrierGradeNat, uniqueLocal, multicast, reserved, unspecified, 6to4, teredo, ...);
 * whatever is not plain `unicast` is something a webhook must not be pointed at.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/**
 * What the delivery dialler may connect to: plain global unicast only. Stricter than `isPublicAddress`,
 * it also refuses IPv4-mapped and IPv4-compatible IPv6 forms (`::ffff:a.b.c.d`, `::a.b.c.d`), whose
 * meaning depends on the host's network stack, and NAT64, 6to4 and Teredo (tunnels to other addresses).
 */
export function isDialableAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.parse(address).range() === 'unicast';
}

/** A loopback address (127.0.0.0/8 or ::1): only the sandbox opt-in admits these. */
export function isLoopbackAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.parse(address).range() === 'loopback';
}

export function isIpLiteral(hostname: string): boolean {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare);
}

/**
 * The receiver URL rules of createWebhook: the contract's rules that need no DNS (the mock applies the same:
 * https, no credentials, a fully qualified hostname that is not an IP literal or a conventionally private
 * name), then a name with at least one public address (a name that resolves only to private, loopback or
 * other special addresses is refused, so the service cannot be turned against its own network). DNS can
 * change after registration, so the delivery dialler must check the address it actually connects to too.
 */
export async function checkWebhookUrl(raw: string, options: UrlPolicyOptions): Promise<UrlVerdict> {
  const shape = checkWebhookUrlShape(raw, { allowLocalhost: options.allowLocalhost });
  if (!shape.ok) return shape;
  const { url, local } = shape;
  if (local) return { ok: true, url: url.href };
  const hostname = url.hostname.toLowerCase();
  // ipaddr.js also knows IP forms the URL parser leaves as names.
  if (isIpLiteral(hostname)) return { ok: false, reason: 'url must use a hostname, not an IP address' };
  let addresses: string[];
  try {
    addresses = await options.resolve(hostname);
  } catch {
    return { ok: false, reason: `the hostname ${hostname} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `the hostname ${hostname} does not resolve` };
  if (!addresses.some(isPublicAddress)) {
    return { ok: false, reason: `the hostname ${hostname} resolves only to private or reserved addresses` };
  }
  return { ok: true, url: url.href };
}
