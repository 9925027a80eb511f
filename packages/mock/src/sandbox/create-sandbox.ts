import { type OperationId, operationList } from '@svc-kit/contract';
import type { EventOfType, EventType } from '@svc-kit/webhooks';
import type { HttpHandler } from 'msw';
import type { QueueRuntime } from '../delivery/queue.js';
import { withEvents } from '../events/with-events.js';
import {
  type InjectedFailure,
  Injections,
  type InjectionTarget,
  type InjectOptions,
} from '../faults/injection.js';
import { fallbackHandlers, malformedPathGuard } from '../http/fallback.js';
import { IdempotencyLedger } from '../http/idempotency.js';
import { checkLatency, type Latency } from '../http/latency.js';
import { operationHandler, type SandboxRuntime, type UntypedBehaviour } from '../http/route.js';
import { behaviours } from '../operations/index.js';
import { createPeer, type SandboxPeer } from '../peers/peer.js';
import { createIdSource, type IdSource } from '../random/ids.js';
import { randomSeed, seedToUint32 } from '../random/prng.js';
import { loadSeed } from '../state/load-seed.js';
import { cloneStore, emptyStore, type SandboxStore } from '../state/model.js';
import type { SandboxData } from '../state/seed-types.js';
import { createStateView, type SandboxStateView } from '../state/views.js';
import { normaliseBaseUrl } from './base-url.js';
import {
  createDeliveryQueue,
  type DeliveryOptions,
  deliveriesApi,
  deliveryPolicy,
  type EmitOptions,
  emitEvent,
  type SandboxDeliveries,
} from './deliveries.js';

export interface SandboxOptions {
  /** Where the mocked API lives, e.g. `https://api.example.test`; the handlers answer `{baseUrl}/v1/...`. */
  baseUrl: string;
  /** What the sandbox holds at the start, and again after every `reset()`. */
  data?: SandboxData;
  /** Makes ids, secrets and latency draws repeat from run to run (for snapshots). Default: random. */
  randomSeed?: number | string;
  /** Delay before every answer: fixed milliseconds, or `{ min, max }`. Default: none. */
  latency?: Latency;
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** Where the signed deliveries of recorded events go (in-process receivers, loopback servers). */
  delivery?: DeliveryOptions;
}

export interface Sandbox {
  /** The msw handlers: pass them to `setupServer(...)` or `setupWorker(...)`. */
  readonly handlers: readonly HttpHandler[];
  /** The normalised base URL the handlers answer on. */
  readonly baseUrl: string;
  /** Read-only views of what the sandbox holds now. */
  readonly state: SandboxStateView;
  /** Back to the state given at creation: data, ids, latency; injections and idempotency keys forgotten. */
  reset(): void;
  /** Adds data to the current state. Throws a `TypeError` (and changes nothing) on bad data. */
  seed(data: SandboxData): void;
  /** The next `times` calls (default: every call) of an operation, or of all (`'*'`), fail this way. */
  inject(target: InjectionTarget, failure: InjectedFailure, options?: InjectOptions): void;
  clearInjections(): void;
  /** Changes the delay before every answer; `undefined` removes it. `reset()` restores the option. */
  setLatency(latency: Latency | undefined): void;
  /** The webhook deliveries of the events the sandbox records: wait for them, read what was sent. */
  readonly deliveries: SandboxDeliveries;
  /** Records a catalogued event, as the service's sandbox trigger does, and delivers it. */
  emit<T extends EventType>(type: T, options?: EmitOptions<T>): EventOfType<T>;
  /** Acts as the party `fingerprint` of the identity `identity`'s contacts (asks, approves, removes). */
  peer(identity: string, fingerprint: string): SandboxPeer;
}

function clockOf(now: () => number): () => number {
  return () => {
    const value = now();
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new TypeError(`the now() option returned ${String(value)}; it must return integer milliseconds`);
    }
    return value;
  };
}

/**
 * A stateful, in-memory stand-in for the service's /v1 API, as msw handlers. Routes, validation and
 * answers come from `@svc-kit/contract`, so the sandbox refuses what the service refuses.
 */
export function createSandbox(options: SandboxOptions): Sandbox {
  const { base, origin } = normaliseBaseUrl(options.baseUrl);
  const seed = options.randomSeed === undefined ? randomSeed() : seedToUint32(options.randomSeed);
  const initialLatency = checkLatency(options.latency);
  const now = clockOf(options.now ?? Date.now);
  const policy = deliveryPolicy(options.delivery);

  let ids: IdSource;
  let store: SandboxStore;
  let latency: Latency | undefined;
  const injections = new Injections();
  const ledger = new IdempotencyLedger();

  function fresh(): void {
    ids = createIdSource(seed);
    const initial = emptyStore();
    if (options.data) loadSeed(initial, options.data, { ids, now: now() });
    store = initial;
    latency = initialLatency;
    injections.clear();
    ledger.clear();
    queue?.reset();
  }
  const queueRuntime: QueueRuntime = { store: () => store, ids: () => ids, now, policy };
  // Assigned before the first fresh(), which resets it on later calls.
  let queue: ReturnType<typeof createDeliveryQueue> | undefined;
  fresh();
  queue = createDeliveryQueue(queueRuntime, options.delivery);
  const deliveries = queue;

  const runtime: SandboxRuntime = {
    store: () => store,
    ids: () => ids,
    now,
    latency: () => latency,
    injections,
    ledger,
    origin,
  };
  const table = withEvents(
    behaviours as unknown as Record<OperationId, UntypedBehaviour>,
    (into, at, event) => deliveries.record(into, at, event),
    { allowLoopbackReceivers: policy.allowLoopback },
  );
  const handlers = [
    malformedPathGuard(base, () => ids),
    ...operationList.map((op) => operationHandler(base, op, table[op.operationId], runtime)),
    ...fallbackHandlers(base, () => ids),
  ];

  return {
    handlers,
    baseUrl: base,
    state: createStateView(() => store, now),
    reset: fresh,
    seed(data) {
      const next = cloneStore(store);
      loadSeed(next, data, { ids, now: now() });
      store = next;
    },
    inject: (target, failure, injectOptions) => injections.add(target, failure, injectOptions),
    clearInjections: () => injections.clear(),
    setLatency(value) {
      latency = checkLatency(value);
    },
    deliveries: deliveriesApi(deliveries),
    emit: (type, emitOptions) => emitEvent(queueRuntime, deliveries, type, emitOptions),
    peer: (identity, fingerprint) =>
      createPeer(
        { ...queueRuntime, emit: (into, at, event) => deliveries.record(into, at, event) },
        identity,
        fingerprint,
      ),
  };
}
