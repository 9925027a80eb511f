import {
  type CatalogueEventData,
  checkTriggeredEvent,
  sampleEventData,
  TRIGGER_ENDPOINT_NOT_FOUND,
} from '@svc-kit/contract';
import { type EventOfType, type EventType, isEventType } from '@svc-kit/webhooks';
import type { WebhookReceiver } from '../delivery/dial.js';
import {
  type DeliveryPolicy,
  DeliveryQueue,
  type QueueRuntime,
  type SentDelivery,
} from '../delivery/queue.js';
import { Refusal } from '../http/refusal.js';
import type { SandboxStore } from '../state/model.js';

/** How the sandbox delivers the events it records (see the README's "Webhook deliveries"). */
export interface DeliveryOptions {
  /**
   * Admit loopback receivers (`http://127.0.0.1:…`, `http://localhost:…`, as the service's local-development
   * switch does) in createWebhook, and dial them with the platform's `fetch`. Default `false`.
   */
  allowLoopback?: boolean;
  /**
   * Dial every other receiver over the network too. Default `false`: a delivery to an address that has no
   * in-process receiver and is not an admitted loopback one fails without a request, as one the service's
   * guard refuses does (and counts towards the pause).
   */
  dialPublic?: boolean;
  /** In-process receivers by endpoint URL: deliveries to that URL call the function instead of the network. */
  receivers?: Readonly<Record<string, WebhookReceiver>>;
  /** Time allowed for one attempt, answer excerpt included. Default 10 seconds, as in the service. */
  timeoutMs?: number;
}

/** What a test controls and reads of the deliveries. */
export interface SandboxDeliveries {
  /** Resolves once every delivery queued so far (and any queued meanwhile) is settled in the log. */
  settled(): Promise<void>;
  /** The requests made so far, in the order they were made: headers and body as sent, and the outcome. */
  sent(): readonly SentDelivery[];
  /** Deliveries to `url` go to `receiver` in process from now on (until `reset()`); `undefined` removes it. */
  receive(url: string, receiver: WebhookReceiver | undefined): void;
}

export interface EmitOptions<T extends EventType> {
  /** The identity slug. Default: the first identity the sandbox knows, by slug. */
  identity?: string;
  /** Exactly the catalogue's fields for `type` (checked again at run time). Default: made-up, well-formed values. */
  data?: CatalogueEventData<T>;
  /**
   * An endpoint id, as the service's trigger takes it (one endpoint's "Send test event"): the event goes to
   * that endpoint alone, if it is active and takes the type. Default: every endpoint that takes it.
   */
  endpoint?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export function deliveryPolicy(options: DeliveryOptions = {}): DeliveryPolicy {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError('delivery.timeoutMs must be a positive whole number of milliseconds');
  }
  return {
    allowLoopback: options.allowLoopback === true,
    dialPublic: options.dialPublic === true,
    timeoutMs,
  };
}

export function createDeliveryQueue(runtime: QueueRuntime, options: DeliveryOptions = {}): DeliveryQueue {
  return new DeliveryQueue(runtime, options.receivers);
}

export function deliveriesApi(queue: DeliveryQueue): SandboxDeliveries {
  return {
    settled: () => queue.settled(),
    sent: () => queue.sent(),
    receive: (url, receiver) => queue.receive(url, receiver),
  };
}

/**
 * The sandbox's trigger: one catalogued event, checked by the contract's rule (the service's
 * `POST /sandbox/events` applies the same), recorded and delivered like an operation's.
 */
export function emitEvent<T extends EventType>(
  runtime: QueueRuntime,
  queue: DeliveryQueue,
  type: T,
  options: EmitOptions<T> = {},
): EventOfType<T> {
  const store = runtime.store();
  // Refusals come before any draw, in the service's order (type and data, identity, endpoint): a refused
  // trigger leaves the id streams where they were, so later ids repeat as if it had not been called.
  const given = options.data !== undefined || !isEventType(type);
  // A type outside the catalogue has no sample: the check refuses it by name.
  const early = given ? checkTriggeredEvent(type, options.data ?? {}) : undefined;
  if (early !== undefined && !early.ok) throw new TypeError(early.reason);
  const identity = options.identity ?? [...store.identities.keys()].sort()[0];
  if (identity === undefined || identity.length === 0) {
    throw new TypeError('name the identity the event is for (emit(type, { identity }))');
  }
  const only = options.endpoint === undefined ? undefined : liveEndpointId(store, options.endpoint);
  const ids = runtime.ids();
  const checked =
    early ??
    checkTriggeredEvent(
      type,
      sampleEventData(type, { contact: `sha256:${ids.eventDigest()}`, threadId: ids.eventStream('thread') }),
    );
  if (!checked.ok) throw new TypeError(checked.reason);
  const now = runtime.now();
  // The checked result pairs the type with its data (the contract narrows it once, where it checks).
  const { ok: _checked, ...typed } = checked;
  const event = queue.record(store, now, { ...typed, identity }, only);
  // `EventOfType<T>` stays unresolved for a generic `T`; the checked type is `type`, that is `T`.
  return { ...event, data: structuredClone(typed.data) } as EventOfType<T>;
}

/**
 * The trigger's `endpoint`, checked as the service checks it: a live endpoint of the sandbox's workspace,
 * else the contract's 404 (an unknown id, a removed endpoint, another sandbox's). Paused or filtered out is
 * no refusal: the fan-out then sends it nothing.
 */
function liveEndpointId(store: SandboxStore, id: unknown): string {
  if (typeof id !== 'string') throw new TypeError('the endpoint option is an endpoint id (a string)');
  const row = store.endpoints.get(id);
  if (row === undefined || row.removed) {
    throw new Refusal(TRIGGER_ENDPOINT_NOT_FOUND.code, TRIGGER_ENDPOINT_NOT_FOUND.message);
  }
  return id;
}
