import { hash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { budget } from './door-limits.js';

// The numbers and their reasons are on the open-choices page (Portal accounts).
const MINUTE = 60_000;

export const STEP_UP_FAILURES = budget(5, 10 * MINUTE, 'wrong MFA codes of this member');
export const LOGIN_PAIR_FAILURES = budget(5, MINUTE, 'wrong passwords for this account from this address');
export const LOGIN_ADDRESS_FAILURES = budget(30, MINUTE / 3, 'wrong passwords from this address');
/** From addresses that never signed in to the account, so that spending it does not lock the owner out. */
export const LOGIN_ACCOUNT_FAILURES = budget(20, 3 * MINUTE, 'wrong passwords for this account');
/**
 * Log-ins to one account, right or wrong, whatever the address: taken before scrypt, given back when the
 * password was wrong (the buckets above count those), so only the holder of the password can spend it.
 */
export const LOGINS_PER_ACCOUNT = budget(10, MINUTE, 'log-ins to this account');
/** Live sessions per member: past it a new one ends the oldest; refusing would lock a new device out. */
export const SESSIONS_PER_MEMBER = 10;
export const CREDENTIAL_FAILURES = budget(30, 2_000, 'refused credentials from this address');
/** Wrong passwords from one IPv6 /48, all its /64s together: four /64s' worth (limitedNetwork). */
export const LOGIN_NETWORK_FAILURES = budget(120, 5_000, 'wrong passwords from this network');

/**
 * The address a limit counts: the socket's peer (or, behind a proxy listed in SVC_TRUSTED_PROXIES, the
 * client it names), IPv4-mapped IPv6 read as IPv4, and IPv6 cut to its /64: one subscriber holds a whole
 * /64, so counting single IPv6 addresses would count nothing.
 */
export function limitedAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const bytes = (address as ipaddr.IPv6).toByteArray().slice(0, 8);
  return `${ipaddr.fromByteArray([...bytes, 0, 0, 0, 0, 0, 0, 0, 0]).toString()}/64`;
}

/**
 * The IPv6 /48 of an address (a site's allocation; a home gets a /56), counted beside its /64 by the doors
 * whose tries cost scrypt, so that walking through a prefix's 65,536 /64s does not bring as many budgets;
 * undefined for IPv4, where one address is the unit a client pays for.
 */
export function limitedNetwork(ip: string): string | undefined {
  if (!ipaddr.isValid(ip)) return undefined;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return undefined;
  const bytes = (address as ipaddr.IPv6).toByteArray().slice(0, 6);
  return `${ipaddr.fromByteArray([...bytes, ...new Array<number>(10).fill(0)]).toString()}/48`;
}

/** The account a login names, as the limits and the known-address table count it. */
export function accountOf(email: string): string {
  return hash('sha256', email.normalize('NFKC').trim().toLowerCase());
}
