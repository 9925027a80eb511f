import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Config {
  host: string;
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  secretKey: string | undefined;
  logLevel: string;
  allowLocalhostWebhooks: boolean;
  publicOrigin: string | undefined;
  production: boolean;
  /** How long a delivery may stay `sending` before the sweeper abandons it; unset: the worker's default. */
  deliveryLeaseMs: number | undefined;
  /** Rows a worker claims ahead of its free slots (0: claim only for free slots). */
  deliveryPrefetch: number | undefined;
  /** Where `/metrics` is served (a port of its own); unset: no metrics are served. */
  metrics: { host: string; port: number } | undefined;
}

/** `src/` and `dist/` both sit one level below the package folder, which holds `.data/`. */
const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads the environment once at start-up; every setting is listed in the README. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const port = Number(env.PORT ?? '8080');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError('PORT must be 0 to 65535');
  const allowLocalhostWebhooks = env.SVC_ALLOW_LOCALHOST_WEBHOOKS === '1';
  if (allowLocalhostWebhooks && production) {
    throw new ConfigError(
      'SVC_ALLOW_LOCALHOST_WEBHOOKS=1 is a sandbox setting and is refused with NODE_ENV=production',
    );
  }
  const lease = env.SVC_DELIVERY_LEASE_MS;
  const deliveryLeaseMs = lease === undefined || lease === '' ? undefined : Number(lease);
  if (deliveryLeaseMs !== undefined && (!Number.isInteger(deliveryLeaseMs) || deliveryLeaseMs < 1_000)) {
    throw new ConfigError('SVC_DELIVERY_LEASE_MS must be a whole number of milliseconds, at least 1000');
  }
  const prefetch = env.SVC_DELIVERY_PREFETCH;
  const deliveryPrefetch = prefetch === undefined || prefetch === '' ? undefined : Number(prefetch);
  if (deliveryPrefetch !== undefined && (!/^\d+$/.test(prefetch ?? '') || deliveryPrefetch > 1_000)) {
    throw new ConfigError('SVC_DELIVERY_PREFETCH must be a whole number from 0 to 1000');
  }
  const metricsPort = env.SVC_METRICS_PORT;
  let metrics: Config['metrics'];
  if (metricsPort !== undefined && metricsPort !== '') {
    const value = Number(metricsPort);
    if (!/^\d+$/.test(metricsPort) || value > 65535) {
      throw new ConfigError('SVC_METRICS_PORT must be 0 to 65535');
    }
    metrics = { host: env.SVC_METRICS_HOST || '127.0.0.1', port: value };
  }
  return {
    host: env.HOST ?? '127.0.0.1',
    port,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: resolve(env.SVC_DATA_DIR ?? resolve(PACKAGE_DIR, '.data')),
    secretKey: env.SVC_SECRET_KEY || undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
    allowLocalhostWebhooks,
    publicOrigin: env.SVC_PUBLIC_ORIGIN || undefined,
    production,
    deliveryLeaseMs,
    deliveryPrefetch,
    metrics,
  };
}
