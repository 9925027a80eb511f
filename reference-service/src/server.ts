import { once } from 'node:events';
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import type { ServiceContext } from './context.js';
import { type RunningDelivery, startDelivery } from './delivery/start.js';
import { startAdminSocket } from './features/sandbox/admin-socket.js';
import { type SeedResult, seedSandbox } from './features/sandbox/seed.js';
import { ServiceMetrics } from './ops/metrics.js';
import { startMetricsServer } from './ops/metrics-server.js';
import { startRetention } from './ops/retention.js';
import { runShutdownSteps } from './ops/shutdown-steps.js';
import { timedDb } from './ops/timed-db.js';
import { Relay } from './relay/relay.js';
import { RELAY_TIMINGS } from './relay/types.js';
import { openRuntime } from './runtime.js';
import { type CredentialCache, startCredentialCache } from './store/credential-cache.js';

export interface RunningService {
  ctx: ServiceContext;
  app: FastifyInstance;
  baseUrl: string;
  seed: SeedResult | undefined;
  /** Whether dist/portal holds a build to serve at `/`. */
  portalBuilt: boolean;
  /** The `/metrics` URL when SVC_METRICS_PORT is set. */
  metricsUrl: string | undefined;
  /** Stops taking requests, lets in-flight ones finish, closes the store; rejects past the grace period. */
  close(): Promise<void>;
}

export async function startService(config: Config, logger: Logger): Promise<RunningService> {
  const { ctx, store } = await openRuntime(config, logger);
  let adminSocket: Server | undefined;
  let app: FastifyInstance | undefined;
  let delivery: RunningDelivery | undefined;
  let retention: ReturnType<typeof startRetention> | undefined;
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | undefined;
  let credentials: CredentialCache | undefined;
  let closing = false;
  const metrics = config.metrics ? new ServiceMetrics(ctx.db) : undefined;
  if (metrics)
    ctx.db = timedDb(ctx.db, {
      statement: metrics.statementSeconds,
      sectionWait: metrics.sectionWaitSeconds,
    });
  // API requests wait for a connection at most databaseWaitMs, then are answered 503; background work
  // (delivery, the relay, the credential cache) waits as long as the database takes instead of failing.
  const background = ctx.db;
  ctx.db = background.withWaitLimit(config.databaseWaitMs);
  // What has started, in the order it stops: on close, or on a start that failed half-way.
  const stopStarted = () =>
    runShutdownSteps(config.shutdownGraceMs, [
      ['closing the API port, with answers in progress', () => app?.close()],
      ['closing the metrics port', () => metricsServer?.close()],
      ['stopping the delivery worker', () => delivery?.stop()],
      ['stopping retention', () => retention?.close()],
      ['stopping the credential cache', () => credentials?.stop()],
      ['closing the admin socket', () => adminSocket && once(adminSocket.close(), 'close')],
      ['closing the database', () => store.close()],
    ]);
  try {
    credentials = await startCredentialCache(background);
    ctx.credentials = credentials;
    // The sandbox workspace exists wherever the service is not in production.
    const seed = config.production ? undefined : await seedSandbox(ctx);
    const relay = config.relay
      ? new Relay(background, logger, {
          ...RELAY_TIMINGS,
          soleInstance: ctx.db.kind === 'pglite',
          now: ctx.now,
        })
      : undefined;
    await relay?.start();
    app = await buildApp(ctx, {
      logger,
      sandboxRoutes: !config.production,
      sandboxEventBudget: config.testEventBudget,
      signUpOpen: config.signUpOpen,
      portalDir: config.portalDir,
      peer: config.peer,
      integrations: config.integrations,
      trustedProxies: config.trustedProxies,
      connections: config.connections,
      relay,
      // Not ready from the first moment of a shutdown: a load balancer stops sending before the drain.
      readiness: { deliveryRunning: () => !closing && (delivery?.running() ?? false) },
      ...(metrics ? { metrics } : {}),
    });
    // Bound first: a metrics port that cannot be had stops the start before the API takes any request.
    if (metrics && config.metrics) metricsServer = await startMetricsServer(metrics, config.metrics, logger);
    // Fastify's own "Server listening" line is quieted for the listen alone: the banner says it first in
    // words, and main.ts logs the address after it.
    const level = app.log.level;
    if (['trace', 'debug', 'info'].includes(level)) app.log.level = 'warn';
    const address = await app.listen({ host: config.host, port: config.port }).finally(() => {
      if (app) app.log.level = level;
    });
    ctx.publicAddress.settle(address);
    if (!config.databaseUrl) adminSocket = await startAdminSocket(ctx, config.dataDir);
    delivery = await startDelivery(
      { ...ctx, db: background },
      logger,
      config.deliveryLeaseMs === undefined ? {} : { leaseMs: config.deliveryLeaseMs },
      { relay, metrics },
    );
    retention = startRetention(background, { now: ctx.now, settings: config.retention, log: logger });
    const started = app;
    return {
      ctx,
      app: started,
      baseUrl: address,
      seed,
      portalBuilt: existsSync(join(config.portalDir, 'index.html')),
      metricsUrl: metricsServer?.url,
      async close() {
        closing = true;
        // The listener closes now, not after Fastify's other close hooks (a new connection was still taken
        // then); Fastify's own `server.close` still waits for the answers in progress. The metrics port stays
        // readable during the drain.
        started.server.close();
        await stopStarted();
      },
    };
  } catch (error) {
    await stopStarted();
    throw error;
  }
}
