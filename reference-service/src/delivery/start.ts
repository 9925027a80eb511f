import type { Logger } from 'pino';
import type { ServiceContext } from '../context.js';
import type { ServiceMetrics } from '../ops/metrics.js';
import { createGuardedClient, type GuardedClientOptions } from '../outbound/guarded-client.js';
import type { Relay } from '../relay/relay.js';
import { createDeliveryWorker, type DeliveryWorkerOptions } from './worker.js';

export interface RunningDelivery {
  /** True from a successful start until `stop` is called (the readiness check reads it). */
  running(): boolean;
  stop(): Promise<void>;
}

export type DeliveryTuning = Partial<
  Pick<DeliveryWorkerOptions, 'concurrency' | 'caps' | 'pollIntervalMs' | 'leaseMs'> &
    Pick<GuardedClientOptions, 'connectTimeoutMs' | 'totalTimeoutMs'>
>;

/** The delivery worker of one service process, dialling through the guarded client. */
export async function startDelivery(
  ctx: ServiceContext,
  logger: Logger,
  tuning: DeliveryTuning = {},
  wiring: { relay?: Relay | undefined; metrics?: ServiceMetrics | undefined } = {},
): Promise<RunningDelivery> {
  const { relay, metrics } = wiring;
  const { connectTimeoutMs = 5_000, totalTimeoutMs = 10_000, leaseMs, ...workerTuning } = tuning;
  const client = createGuardedClient({
    resolve: ctx.resolveHost,
    allowLocalhost: ctx.allowLocalhostWebhooks,
    connectTimeoutMs,
    totalTimeoutMs,
  });
  const worker = createDeliveryWorker({
    db: ctx.db,
    secretBox: ctx.secretBox,
    client,
    relay,
    onOutcome: metrics ? (outcome) => metrics.countDelivery(outcome) : undefined,
    logger,
    now: ctx.now,
    ...workerTuning,
    leaseMs: leaseMs ?? Math.max(60_000, totalTimeoutMs * 3),
    // PGlite: this process holds the data-dir lock, so any row left `sending` is from a dead process.
    soleOwner: ctx.db.kind === 'pglite',
  });
  try {
    await worker.start();
  } catch (error) {
    await client.close();
    throw error;
  }
  let stopped: Promise<void> | undefined;
  return {
    running: () => stopped === undefined,
    // Idempotent: a second call (a shutdown hook after an explicit stop) waits for the first.
    stop() {
      stopped ??= worker.stop().then(() => client.close());
      return stopped;
    },
  };
}
