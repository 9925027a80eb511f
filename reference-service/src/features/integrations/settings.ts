import { ConfigError } from '../../config.js';
import type { IntegrationTransport } from './catalogue.js';
import { BUILT_IN_CATALOGUE, type CatalogueEntry } from './catalogue.js';

/** How this instance reaches upstream MCP servers; from the environment unless a caller (a test) passes it. */
export interface IntegrationSettings {
  /**
   * Sandbox opt-in (SVC_ALLOW_LOCALHOST_INTEGRATIONS=1): upstreams on http(s)://localhost and 127.0.0.1.
   * Everything else goes through the webhook delivery guard unchanged.
   */
  allowLocalhost: boolean;
  /** Time allowed to connect to an upstream, and for one MCP request. */
  timeoutMs: number;
  /** The catalogue createIntegration's `catalogue` field names; the built-in one by default. */
  catalogue: Readonly<Record<string, CatalogueEntry>>;
}

export const DEFAULT_INTEGRATION_TIMEOUT_MS = 10_000;

export function integrationSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): IntegrationSettings {
  const allowLocalhost = env.SVC_ALLOW_LOCALHOST_INTEGRATIONS === '1';
  if (allowLocalhost && env.NODE_ENV === 'production') {
    throw new ConfigError(
      'SVC_ALLOW_LOCALHOST_INTEGRATIONS=1 is a sandbox setting and is refused with NODE_ENV=production',
    );
  }
  return {
    allowLocalhost,
    timeoutMs: DEFAULT_INTEGRATION_TIMEOUT_MS,
    catalogue: BUILT_IN_CATALOGUE,
  };
}

export type { IntegrationTransport };
