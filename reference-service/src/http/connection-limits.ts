import { readFileSync } from 'node:fs';
import { settingsIn } from '../env-settings.js';

/**
 * How long a request may take to arrive and how many connections the public port holds, so that slow or
 * numerous connections cannot pin its sockets (open-choices page; the README lists the settings).
 */
export interface ConnectionLimits {
  /** `SVC_REQUEST_TIMEOUT_MS`: a request's headers and body must have arrived within it (else 408). */
  requestTimeoutMs: number;
  /** Its headers alone, within this part of it. */
  headersTimeoutMs: number;
  /** `SVC_CONNECTION_TIMEOUT_MS`: a connection on which no byte moves either way for this long is ended. */
  connectionTimeoutMs: number;
  /** `SVC_MAX_CONNECTIONS`: connections open at once on the public port; more are closed as they come. */
  maxConnections: number;
  /** `SVC_MAX_CONNECTIONS_PER_ADDRESS`: the same from one client address (trusted proxies excepted). */
  maxConnectionsPerAddress: number;
}

const HEADERS_TIMEOUT_MS = 10_000;

/** The most `SVC_MAX_CONNECTIONS` may be set to. */
const MAX_CONNECTIONS = 1_000_000;

/**
 * Half of the process's open-files limit (Linux), so that the other half stays for the database, the
 * delivery worker's sockets and the relay whatever the clients do; 4,096 where the limit cannot be read.
 * Never above what the setting itself accepts: some container hosts allow about a billion open files, and
 * a default the setting would refuse would stop the service from starting with nothing set.
 */
export function defaultMaxConnections(limitsFile = '/proc/self/limits'): number {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((text) => text.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    if (Number.isInteger(soft) && soft > 0)
      return Math.min(MAX_CONNECTIONS, Math.max(16, Math.floor(soft / 2)));
  } catch {
    // No /proc: not Linux.
  }
  return 4_096;
}

/** Reads the settings (config.ts calls it once); throws ConfigError, naming the setting, on a bad value. */
export function readConnectionLimits(env: NodeJS.ProcessEnv): ConnectionLimits {
  const read = settingsIn(env);
  const requestTimeoutMs = read.whole('SVC_REQUEST_TIMEOUT_MS', 30_000, 1_000, 600_000);
  return {
    requestTimeoutMs,
    headersTimeoutMs: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
    connectionTimeoutMs: read.whole('SVC_CONNECTION_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
    maxConnections: read.whole('SVC_MAX_CONNECTIONS', defaultMaxConnections(), 1, MAX_CONNECTIONS),
    maxConnectionsPerAddress: read.whole('SVC_MAX_CONNECTIONS_PER_ADDRESS', 64, 1, 1_000_000),
  };
}

/** What a server built without settings (tests, the bench's in-process targets) gets. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = readConnectionLimits({});
