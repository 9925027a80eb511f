import { isIP } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ipaddr from 'ipaddr.js';
import { reachOf } from './domain/local-targets.js';
import { DEFAULT_WORKSPACE_REQUEST_RATE } from './domain/workspace-requests.js';
import { ConfigError, settingsIn } from './env-settings.js';
import { DEFAULT_INTEGRATION_SETTINGS } from './features/integrations/settings.js';
import { readConnectionLimits } from './http/connection-limits.js';
import { DEFAULT_RETENTION, RETENTION_DAYS_DEFAULT } from './ops/retention.js';
import { refusedDnsServer } from './outbound/dns-resolve.js';
import { DEFAULT_PEER_SETTINGS } from './peer/settings.js';

export type Config = ReturnType<typeof readConfig>;

/** `src/` and `dist/` both sit one level below the package folder. */
const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where PGlite keeps its files when `SVC_DATA_DIR` is unset. */
export const DEFAULT_DATA_DIR = resolve(PACKAGE_DIR, '.data');
export const DEFAULT_PORT = 8080;

/** Reads every setting (listed in the README) once at start-up: nothing else reads `process.env`. */
export function readConfig(env: NodeJS.ProcessEnv) {
  const production = env.NODE_ENV === 'production';
  const read = settingsIn(env);
  const port = read.whole('PORT', DEFAULT_PORT, 0, 65535);
  const deliveryLeaseMs = read.whole(
    'SVC_DELIVERY_LEASE_MS',
    undefined,
    1_000,
    86_400_000,
    ' of milliseconds',
  );
  const databaseWaitMs = read.whole('SVC_DATABASE_WAIT_MS', 5_000, 100, 120_000, ' of milliseconds');
  const shutdownGraceMs = read.whole('SVC_SHUTDOWN_GRACE_MS', 25_000, 1_000, 600_000, ' of milliseconds');
  // Authenticated requests a second per workspace on this instance (0: no budget, for load tests).
  const workspaceRequestRate = read.whole(
    'SVC_WORKSPACE_REQUEST_RATE',
    DEFAULT_WORKSPACE_REQUEST_RATE,
    0,
    100_000,
    ' of requests a second',
  );
  const retentionDays = read.whole('SVC_RETENTION_DAYS', RETENTION_DAYS_DEFAULT, 1, 3650, ' of days');
  const relay = read.choice('SVC_RELAY', ['on', 'off']);
  const signUp = read.choice('SVC_SIGNUP', ['open', 'closed']);
  const testEventBudget = read.choice('SVC_TEST_EVENT_BUDGET', ['on', 'off']);
  const firstStartSecrets = read.choice('SVC_FIRST_START_SECRETS', ['stdout', 'file']);
  const passwordCost = read.choice('SVC_PASSWORD_COST', ['standard', 'test']) ?? 'standard';
  if (passwordCost === 'test' && production) {
    throw new ConfigError(
      'SVC_PASSWORD_COST=test is for test suites and is refused with NODE_ENV=production',
    );
  }
  const publicUrl = readPublicUrl(env.SVC_PUBLIC_URL || undefined, 'SVC_PUBLIC_URL', production);
  if (production && publicUrl === undefined) {
    throw new ConfigError(
      'SVC_PUBLIC_URL is required with NODE_ENV=production: cards, the OAuth callback and the cross-site ' +
        'check name this instance by it, never by what a request says',
    );
  }
  const host = readListenHost(env.HOST || '127.0.0.1', 'HOST');
  const publicOrigin = readPublicUrl(env.SVC_PUBLIC_ORIGIN || undefined, 'SVC_PUBLIC_ORIGIN', production);
  const trustedProxies = readTrustedProxies(env.SVC_TRUSTED_PROXIES);
  const reach = reachOf({ production, host, publicUrl, publicOrigin, trustedProxies });
  // The opt-ins (`NAME=1`) admit localhost on a sandbox others reach (a container's): never in production.
  const localTargets = (name: string) => {
    if (env[name] === '1' && production) {
      throw new ConfigError(`${name}=1 is a sandbox setting and is refused with NODE_ENV=production`);
    }
    return env[name] === '1' || reach.local;
  };
  const metricsPort = read.whole('SVC_METRICS_PORT', undefined, 0, 65535);
  if (metricsPort !== 0 && metricsPort === port) {
    throw new ConfigError('SVC_METRICS_PORT must differ from PORT: /metrics never shares the API port');
  }
  // Where `/metrics` is served, on a port of its own; unset: no metrics are served.
  const metrics =
    metricsPort === undefined
      ? undefined
      : { host: readListenHost(env.SVC_METRICS_HOST || '127.0.0.1', 'SVC_METRICS_HOST'), port: metricsPort };
  return {
    relay: relay === undefined ? !production : relay === 'on',
    host,
    port,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: resolve(env.SVC_DATA_DIR ?? DEFAULT_DATA_DIR),
    secretKey: env.SVC_SECRET_KEY || undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
    // Whether only this machine can reach the service: a local sandbox admits localhost targets.
    reach,
    allowLocalhostWebhooks: localTargets('SVC_ALLOW_LOCALHOST_WEBHOOKS'),
    // Unset: the sandbox's listening address stands in (public-address.ts).
    publicUrl,
    // Proxies whose `X-Forwarded-For` names the client the sign-in limits count; never the public URL.
    trustedProxies,
    connections: readConnectionLimits(env),
    publicOrigin,
    production,
    databaseWaitMs,
    shutdownGraceMs,
    workspaceRequestRate,
    // Unset: the worker's default.
    deliveryLeaseMs,
    metrics,
    signUpOpen: signUp === undefined ? !production : signUp === 'open',
    passwordCost,
    testEventBudget: testEventBudget !== 'off',
    // Unset: to a terminal when stdout is one, else to a private file (first-start-secrets.ts).
    firstStartSecrets,
    portalDir: resolve(env.SVC_PORTAL_DIR ?? resolve(PACKAGE_DIR, 'dist', 'portal')),
    peer: { ...DEFAULT_PEER_SETTINGS, allowLocalhost: localTargets('SVC_ALLOW_LOCALHOST_PEERS'), reach },
    integrations: {
      ...DEFAULT_INTEGRATION_SETTINGS,
      allowLocalhost: localTargets('SVC_ALLOW_LOCALHOST_INTEGRATIONS'),
      reach,
    },
    retention: { ...DEFAULT_RETENTION, keepMs: retentionDays * DAY_MS },
    dnsServers: readDnsServers(env.SVC_DNS_SERVERS),
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** An address to listen on: an IP address (`0.0.0.0`, `::` for every interface) or a host name. */
function readListenHost(value: string, name: string): string {
  if (isIP(value) !== 0 || HOST_NAME.test(value)) return value;
  throw new ConfigError(`${name} must be an IP address or a host name (such as 127.0.0.1, ::1 or localhost)`);
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** An absolute http(s) URL without credentials, query or fragment; https only in production. */
function readPublicUrl(value: string | undefined, name: string, production: boolean): string | undefined {
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  const schemes = production ? ['https:'] : ['https:', 'http:'];
  if (!url || !schemes.includes(url.protocol) || url.username || url.password || url.search || url.hash) {
    throw new ConfigError(
      `${name} must be an absolute ${production ? 'https' : 'http(s)'} URL without credentials, query or fragment, such as https://svc.example`,
    );
  }
  return value.replace(/\/+$/, '');
}

/** `ip`, `ip:port`, `[ipv6]:port`, comma-separated, as `dns.Resolver.setServers` takes them. */
function readDnsServers(value: string | undefined): string[] | undefined {
  const servers = commaList(value);
  if (servers.length === 0) return undefined;
  const refused = refusedDnsServer(servers);
  if (refused !== undefined) {
    throw new ConfigError(
      `SVC_DNS_SERVERS: ${refused} is not an IP address with an optional port (such as 1.1.1.1 or 127.0.0.1:5353)`,
    );
  }
  return servers;
}

function readTrustedProxies(value: string | undefined): string[] {
  const entries = commaList(value);
  for (const entry of entries) {
    if (!ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry)) {
      throw new ConfigError(`SVC_TRUSTED_PROXIES: ${entry} is neither an IP address nor a CIDR range`);
    }
  }
  return entries;
}

function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}
