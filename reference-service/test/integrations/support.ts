import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import type { UpstreamHostBudgets } from '../../src/domain/upstream-host-limits.js';
import type { CatalogueEntry } from '../../src/features/integrations/settings.js';
import { DEFAULT_INTEGRATION_SETTINGS } from '../../src/features/integrations/settings.js';
import { loggerOptions } from '../../src/http/logger.js';
import type { OpenedStore } from '../../src/store/open.js';
import type { Instance, TestClock } from '../contacts/support.js';
import type { StoredEvent } from '../support/endpoints.js';
import { testContext } from '../support/harness.js';
import { lineSink } from '../support/line-sink.js';

export interface IntegrationInstanceOptions {
  /** The sandbox opt-in for upstreams on loopback (the test upstreams live there). */
  allowLocalhost: boolean;
  catalogue?: Record<string, CatalogueEntry>;
  /** The sandbox opt-in for webhook receivers on loopback (a test's receivers live there). Default off. */
  allowLocalhostWebhooks?: boolean;
  /** Narrower budgets per upstream host than the service's, for a test to reach them. */
  hostBudgets?: UpstreamHostBudgets;
}

/** A service instance with its own database and its own log, peers and upstreams allowed on loopback. */
export async function startIntegrationInstance(
  store: OpenedStore,
  clock: TestClock,
  options: IntegrationInstanceOptions,
): Promise<Instance & { logs(): string }> {
  const { sink, lines } = lineSink();
  const ctx = testContext(store, {
    allowLocalhostWebhooks: options.allowLocalhostWebhooks ?? false,
    now: clock.now,
    passwordCost: 'test',
  });
  const build = async (port: number): Promise<{ app: FastifyInstance; url: URL }> => {
    const app = await buildApp(ctx, {
      logger: pino(loggerOptions('info'), sink),
      peer: { allowLocalhost: true, timeoutMs: 5000 },
      integrations: {
        ...DEFAULT_INTEGRATION_SETTINGS,
        allowLocalhost: options.allowLocalhost,
        timeoutMs: 5000,
        catalogue: options.catalogue ?? {},
        hostBudgets: options.hostBudgets,
      },
    });
    const address = await app.listen({ host: '127.0.0.1', port });
    ctx.publicAddress.settle(address);
    return { app, url: new URL(address) };
  };
  let current: FastifyInstance | undefined;
  const first = await build(0);
  current = first.app;
  const port = Number(first.url.port);
  return {
    ctx,
    store,
    baseUrl: first.url.origin,
    port,
    logs: () => lines.join(''),
    async stop() {
      await current?.close();
      current = undefined;
    },
    async restart() {
      current = (await build(port)).app;
    },
    async close() {
      await current?.close();
      current = undefined;
    },
  };
}

/** The integration events among those a workspace's endpoint took (contacts/support.ts, eventsFrom), in order. */
export async function integrationEvents(
  taken: () => Promise<StoredEvent[]>,
): Promise<{ type: string; data: Record<string, unknown> }[]> {
  return (await taken())
    .filter((row) => row.type.startsWith('integration.'))
    .map((row) => ({
      type: row.type,
      data: (JSON.parse(row.body) as { data: Record<string, unknown> }).data,
    }));
}
