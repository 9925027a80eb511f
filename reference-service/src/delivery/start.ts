import type { Logger } from 'pino';
import type { ServiceContext } from '../context.js';
import { deliveryOutcomes } from '../ops/delivery-metrics.js';
import type { ServiceMetrics } from '../ops/metrics.js';
import { createGuardedClient, type GuardedClientOptions } from '../outbound/guarded-client.js';
import type { Relay } from '../relay/relay.js';
import { createDeliveryWorker, type DeliveryWorker, type DeliveryWorkerOptions } from './worker.js';

export interface RunningDelivery {
  worker: DeliveryWorker;
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
  const totalTimeoutMs = tuning.totalTimeoutMs ?? 10_000;
  const client = createGuardedClient({
    resolve: ctx.resolveHost,
    allowLocalhost: ctx.allowLocalhostWebhooks,
    connectTimeoutMs: tuning.connectTimeoutMs ?? 5_000,
    totalTimeoutMs,
  });
  const worker = createDeliveryWorker({
    db: ctx.db,
    secretBox: ctx.secretBox,
    client,
    relay,
    ...(metrics ? { onOutcome: deliveryOutcomes(metrics) } : {}),
    logger,
    now: ctx.now,
    ...(tuning.concurrency === undefined ? {} : { concurrency: tuning.concurrency }),
    ...(tuning.caps === undefined ? {} : { caps: tuning.caps }),
    ...(tuning.pollIntervalMs === undefined ? {} : { pollIntervalMs: tuning.pollIntervalMs }),
    leaseMs: tuning.leaseMs ?? Math.max(60_000, totalTimeoutMs * 3),
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
    worker,
    running: () => stopped === undefined,
    // Idempotent: a second call (a shutdown hook after an explicit stop) waits for the first.
    stop() {
      stopped ??= worker.stop().then(() => client.close());
      return stopped;
    },
  };
}
