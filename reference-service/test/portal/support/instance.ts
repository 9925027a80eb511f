import pino from 'pino';
import { inject } from 'vitest';
import { buildApp } from '../../../src/app.js';
import type { ServiceContext } from '../../../src/context.js';
import { type RunningDelivery, startDelivery } from '../../../src/delivery/start.js';
import { DEFAULT_INTEGRATION_SETTINGS } from '../../../src/features/integrations/settings.js';
import { loggerOptions } from '../../../src/http/logger.js';
import type { OpenedStore } from '../../../src/store/open.js';
import { testContext } from '../../support/harness.js';
import { lineSink } from '../../support/line-sink.js';

/** A sandbox service as `npm start` runs it: portal, sign-up open, sandbox trigger, delivery worker. */
export interface PortalInstance {
  baseUrl: string;
  ctx: ServiceContext;
  logs(): string;
  close(): Promise<void>;
}

export async function startPortalInstance(store: OpenedStore): Promise<PortalInstance> {
  const { sink, lines } = lineSink();
  // The sandbox opt-in: the test's receiver, peer and MCP server all listen on loopback.
  const ctx = testContext(store, { allowLocalhostWebhooks: true, passwordCost: 'test' });
  const app = await buildApp(ctx, {
    logger: pino(loggerOptions('info'), sink),
    sandboxRoutes: true,
    signUpOpen: true,
    peer: { allowLocalhost: true, timeoutMs: 5000 },
    integrations: { ...DEFAULT_INTEGRATION_SETTINGS, allowLocalhost: true, timeoutMs: 5000, catalogue: {} },
    portalDir: inject('portalDir'),
  });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  ctx.publicAddress.settle(baseUrl);
  const delivery: RunningDelivery = await startDelivery(ctx, pino({ level: 'warn' }, sink), {
    pollIntervalMs: 200,
  });
  return {
    baseUrl,
    ctx,
    logs: () => lines.join(''),
    async close() {
      await app.close();
      await delivery.stop();
    },
  };
}
