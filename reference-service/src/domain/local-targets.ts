import { LOCAL_WEBHOOK_HOSTS } from '@svc-kit/contract';
import ipaddr from 'ipaddr.js';

/**
 * Whether this instance is a sandbox only this machine can reach, where targets on localhost are what a
 * developer means and are admitted with no setting. Listening on loopback does not prove it (a public
 * deployment often sits behind a proxy on the same host): a non-loopback public URL or origin, trusted
 * proxies, a listening address beyond loopback or production each mean others may reach it.
 */
export interface Reach {
  /** True when nothing says that anyone but this machine can reach the service. */
  local: boolean;
  production: boolean;
  /** Why, naming settings and their values: for the operator's start-up line. */
  why: string;
  /** Why it is not local, naming settings only (a refusal is read by callers, not the operator). */
  reachableBecause: string[];
}

export function reachOf(settings: {
  production: boolean;
  host: string;
  publicUrl: string | undefined;
  publicOrigin: string | undefined;
  trustedProxies: readonly string[];
}): Reach {
  const found: { names: string; values: string }[] = [];
  if (settings.production) found.push({ names: 'NODE_ENV=production', values: 'NODE_ENV=production' });
  for (const [name, value] of [
    ['SVC_PUBLIC_URL', settings.publicUrl],
    ['SVC_PUBLIC_ORIGIN', settings.publicOrigin],
  ] as const) {
    if (value !== undefined && !isLoopbackHost(new URL(value).hostname)) {
      found.push({ names: `${name} is not a loopback address`, values: `${name}=${value} is not loopback` });
    }
  }
  if (settings.trustedProxies.length > 0) {
    found.push({
      names: 'SVC_TRUSTED_PROXIES names a reverse proxy',
      values: `SVC_TRUSTED_PROXIES=${settings.trustedProxies.join(',')} names a reverse proxy`,
    });
  }
  if (!isLoopbackHost(settings.host)) {
    found.push({
      names: 'HOST listens beyond loopback',
      values: `HOST=${settings.host} listens beyond loopback`,
    });
  }
  if (found.length === 0) {
    return {
      local: true,
      production: false,
      why: `it listens on ${settings.host} only, with no public URL, trusted proxy or NODE_ENV=production`,
      reachableBecause: [],
    };
  }
  return {
    local: false,
    production: settings.production,
    why: found.map((reason) => reason.values).join('; '),
    reachableBecause: found.map((reason) => reason.names),
  };
}

/** `localhost`, or an address of 127.0.0.0/8 or ::1 (bracketed or not). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  if (!ipaddr.isValid(bare)) return false;
  const address = ipaddr.process(bare);
  return address.range() === 'loopback';
}

/** The three kinds of outbound target, each with the opt-in that admits it on localhost outside a local sandbox. */
const LOCAL_TARGET_KINDS = {
  webhooks: { noun: 'a webhook receiver', flag: 'SVC_ALLOW_LOCALHOST_WEBHOOKS' },
  peers: { noun: 'a peer (a contact card’s endpoint)', flag: 'SVC_ALLOW_LOCALHOST_PEERS' },
  integrations: { noun: 'an MCP server', flag: 'SVC_ALLOW_LOCALHOST_INTEGRATIONS' },
} as const;

/**
 * The words a refusal of a target on localhost ends with: what would admit it. Empty elsewhere, or when
 * localhost is admitted; `reach` unset (a test's service): the rule in general.
 */
export function localTargetHint(
  raw: string,
  kind: keyof typeof LOCAL_TARGET_KINDS,
  allowed: boolean,
  reach: Pick<Reach, 'production' | 'reachableBecause'> | undefined,
): string {
  if (allowed || !URL.canParse(raw)) return '';
  if (!LOCAL_WEBHOOK_HOSTS.has(new URL(raw).hostname.toLowerCase())) return '';
  const { noun, flag } = LOCAL_TARGET_KINDS[kind];
  const rule = `${noun} on localhost is accepted by a local sandbox only`;
  if (reach?.production) return ` (${rule}; never with NODE_ENV=production)`;
  const reachable =
    reach === undefined
      ? '(one listening on loopback, with no SVC_PUBLIC_URL, SVC_TRUSTED_PROXIES or NODE_ENV=production)'
      : `(this service may be reached from elsewhere: ${reach.reachableBecause.join('; ')})`;
  return ` (${rule} ${reachable}, or with ${flag}=1 outside production)`;
}
