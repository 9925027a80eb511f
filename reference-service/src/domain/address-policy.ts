import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses the service may connect to on someone else's say-so: an allow-list. Only globally
 * routable unicast per the IANA special-purpose registries (as of 2025) is admitted; a library's plain
 * "unicast" is not enough (ipaddr.js says so of `::7f00:1`, which is 127.0.0.1). Every IPv6 form that
 * carries an IPv4 address (compatible, mapped, NAT64, 6to4, Teredo, ISATAP) is judged as that address;
 * the local-use NAT64 prefix `64:ff9b:1::/48` is refused whole.
 */

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];
const cidrs = (list: readonly string[]): Cidr[] => list.map((text) => ipaddr.parseCIDR(text));

/** IPv4 blocks whose "Globally Reachable" is false in the IANA registry, plus multicast and 240/4. */
const IPV4_NOT_GLOBAL = cidrs([
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // private
  '100.64.0.0/10', // shared address space (CGNAT)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local (cloud metadata lives here)
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments (its two anycast /32s are refused with it)
  '192.0.2.0/24', // documentation
  '192.88.99.0/24', // deprecated 6to4 relay anycast
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the limited broadcast address
]);

/** Global unicast IPv6 is 2000::/3; inside it, these blocks are not globally reachable. */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const IPV6_NOT_GLOBAL = cidrs([
  '2001::/23', // IETF protocol assignments (exceptions below)
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation
  '5f00::/16', // segment routing SIDs (outside 2000::/3 too; kept for the record)
]);
/** Inside 2001::/23, the registry marks these globally reachable. */
const IPV6_GLOBAL_EXCEPTIONS = cidrs([
  '2001:1::1/128',
  '2001:1::2/128',
  '2001:1::3/128',
  '2001:3::/32',
  '2001:4:112::/48',
  '2001:20::/28',
  '2001:30::/28',
]);
const IPV4_MAPPED = ipaddr.parseCIDR('::ffff:0:0/96');
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');
const TEREDO = ipaddr.parseCIDR('2001::/32');

const inAny = (address: ipaddr.IPv4 | ipaddr.IPv6, list: readonly Cidr[]) =>
  list.some(([range, bits]) => address.kind() === range.kind() && address.match(range, bits));

const v4From = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

function isGlobalV4(address: ipaddr.IPv4): boolean {
  return !inAny(address, IPV4_NOT_GLOBAL);
}

/** The IPv4 addresses an IPv6 address stands for, if it is one of the embedding forms. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  if (address.match(IPV4_MAPPED) || address.match(IPV4_COMPATIBLE) || address.match(NAT64_WELL_KNOWN)) {
    return [v4From(p[6], p[7])];
  }
  if (address.match(SIX_TO_FOUR)) return [v4From(p[1], p[2])];
  // Teredo: the server's address as is, the client's with every bit inverted.
  if (address.match(TEREDO)) return [v4From(p[2], p[3]), v4From(p[6] ^ 0xffff, p[7] ^ 0xffff)];
  // ISATAP interface id (RFC 5214): 0000:5efe or 0200:5efe (u/g bits aside), then the IPv4 address.
  if ((p[4] & 0xfcff) === 0 && p[5] === 0x5efe) return [v4From(p[6], p[7])];
  return [];
}

function isGlobalV6(address: ipaddr.IPv6): boolean {
  const embedded = embeddedIPv4(address);
  // ::/96 and ::ffff:0:0/96 and 64:ff9b::/96 lie outside 2000::/3: they mean their IPv4 address.
  if (address.match(IPV4_MAPPED) || address.match(IPV4_COMPATIBLE) || address.match(NAT64_WELL_KNOWN)) {
    return embedded.every(isGlobalV4);
  }
  if (!address.match(IPV6_GLOBAL_UNICAST)) return false;
  if (address.match(SIX_TO_FOUR) || address.match(TEREDO)) return embedded.every(isGlobalV4);
  if (inAny(address, IPV6_NOT_GLOBAL) && !inAny(address, IPV6_GLOBAL_EXCEPTIONS)) return false;
  return embedded.every(isGlobalV4);
}

/**
 * True only for a canonical IPv4 or IPv6 address that is globally routable unicast; text the socket layer
 * would not take as an address (`127.1`, `0x7f.0.0.1`, names) is refused.
 */
export function isGlobalUnicast(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? isGlobalV4(parsed as ipaddr.IPv4) : isGlobalV6(parsed as ipaddr.IPv6);
}

/** A loopback address (127.0.0.0/8 or ::1): only the sandbox opt-ins admit these, for local names. */
export function isLoopbackAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  return ipaddr.parse(address).range() === 'loopback';
}
