import { Resolver } from 'node:dns/promises';
import { isIP, isIPv4, isIPv6 } from 'node:net';
import { type ResolveHost, ResolveTimeoutError } from '../domain/url-policy.js';

/** How long each DNS server has to answer one try, and how many tries each server gets. */
const DNS_TRY_TIMEOUT_MS = 1_000;
const DNS_TRIES = 2;
/**
 * The most a name may take to resolve, both families, whatever the servers and tries: half of the smallest
 * connect timeout, which counts the lookup, so a slow name is refused as such and TCP and TLS keep the rest.
 */
export const DNS_DEADLINE_MS = 2_500;

/** Answers that mean "no address of this family", as opposed to a server that failed to answer. */
const NO_SUCH_ADDRESS = new Set(['ENODATA', 'ENOTFOUND']);

type Family = { addresses: string[] } | { error: unknown } | { late: true };

/**
 * Resolves outbound names with c-ares (`dns.Resolver`, on the event loop) rather than `dns.lookup`, whose
 * getaddrinfo holds libuv's thread pool beside scrypt, unbounded: one tenant's slow DNS server stalled every
 * other tenant's deliveries and log-ins (issue 40). c-ares reads neither /etc/hosts nor search domains: a
 * receiver's name must resolve in public DNS anyway. `servers`: `SVC_DNS_SERVERS`; unset, the system's.
 */
export function createDnsResolve(options: { servers?: readonly string[] | undefined } = {}): ResolveHost {
  const resolver = new Resolver({ timeout: DNS_TRY_TIMEOUT_MS, tries: DNS_TRIES });
  if (options.servers) resolver.setServers(options.servers);
  return async (hostname) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
    // getaddrinfo answered these without DNS; the policy then judges them as it always has.
    if (isIP(bare) !== 0) return [bare];
    // RFC 6761: loopback, never asked of a DNS server (which would say NXDOMAIN, or anything it likes).
    if (name === 'localhost' || name.endsWith('.localhost')) return ['127.0.0.1', '::1'];
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<Family>((resolve) => {
      timer = setTimeout(() => resolve({ late: true }), DNS_DEADLINE_MS);
    });
    const settle = (query: Promise<string[]>) =>
      Promise.race([
        query.then(
          (addresses): Family => ({ addresses }),
          (error): Family => ({ error }),
        ),
        deadline,
      ]);
    // An abandoned query ends on c-ares's own timeouts, costing no thread meanwhile.
    const families = await Promise.all([settle(resolver.resolve4(name)), settle(resolver.resolve6(name))]);
    clearTimeout(timer);
    // Only the addresses returned here are ever dialled, so a family that failed or came too late takes
    // nothing unchecked along: the other family's addresses are used alone.
    const addresses = families.flatMap((family) => ('addresses' in family ? family.addresses : []));
    if (addresses.length > 0) return addresses;
    // A name that does not exist has no address of either family, however late the other answer is.
    const missing = families.find((family) => 'error' in family && errorCode(family.error) === 'ENOTFOUND');
    if (missing) throw (missing as { error: unknown }).error;
    const timedOut = families.some(
      (family) => 'late' in family || ('error' in family && errorCode(family.error) === 'ETIMEOUT'),
    );
    if (timedOut) throw new ResolveTimeoutError(name, DNS_DEADLINE_MS);
    const failure = families.find(
      (family): family is { error: unknown } =>
        'error' in family && !NO_SUCH_ADDRESS.has(errorCode(family.error)),
    );
    if (failure) throw failure.error;
    return [];
  };
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * The first of `servers` that is not `ip`, `ip:port`, `[ipv6]` or `[ipv6]:port` (port 1 to 65535), if any:
 * `setServers` ignores some bad ports and aborts the process on others.
 */
export function refusedDnsServer(servers: readonly string[]): string | undefined {
  return servers.find((server) => {
    if (isIP(server) !== 0) return false;
    const match = /^(?:\[([^\]]+)\]|([\d.]+))(?::(\d{1,5}))?$/.exec(server);
    if (!match) return true;
    const [, v6, v4, port] = match;
    const addressOk = v6 !== undefined ? isIPv6(v6) : isIPv4(v4 ?? '');
    const portOk =
      port === undefined || (Number(port) >= 1 && Number(port) <= 65535 && !port.startsWith('0'));
    return !(addressOk && portOk);
  });
}
