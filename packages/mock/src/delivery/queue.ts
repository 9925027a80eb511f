import {
  endpointReceives,
  eventBody,
  FAILURES_BEFORE_PAUSE,
  LOCAL_WEBHOOK_HOSTS,
  NOT_SENT_PAUSED,
  NOT_SENT_REMOVED,
  type WebhookDelivery,
} from '@svc-kit/contract';
import { type EventType, HEADER_NAMES, signAsync, type WebhookEvent } from '@svc-kit/webhooks';
import type { NewEvent } from '../events/operation-events.js';
import type { IdSource } from '../random/ids.js';
import type { EndpointRow, SandboxStore } from '../state/model.js';
import { dial, type WebhookReceiver } from './dial.js';

/** The header the mock's deliveries carry in place of the service's own product name. */
const USER_AGENT = 'svc-kit-mock (+webhooks)';

/** An event as the sandbox recorded it: the body every delivery of it carries. */
export interface RecordedEvent {
  id: string;
  type: EventType;
  created_at: number;
  identity: string;
}

/** One request the sandbox made to a receiver, for the test to read. */
export interface SentDelivery {
  deliveryId: string;
  endpointId: string;
  url: string;
  /** `'handler'`: the in-process receiver; `'fetch'`: the platform's fetch. */
  via: 'handler' | 'fetch';
  /** The signed headers, as sent (names in lower case). */
  headers: Readonly<Record<string, string>>;
  /** The raw body, as signed. */
  body: string;
  /** The body parsed. */
  event: WebhookEvent;
  /** The delivery log's record once the attempt is settled; `undefined` while it is on the wire. */
  outcome: WebhookDelivery | undefined;
  /** Why no answer came (the receiver threw, timed out, the connection failed); else `undefined`. */
  failure: string | undefined;
}

export interface DeliveryPolicy {
  /** Loopback receivers (`http(s)://127.0.0.1`, `localhost`) are admitted and dialled. */
  allowLoopback: boolean;
  /** Other addresses are dialled too, over the network; otherwise their deliveries fail unsent. */
  dialPublic: boolean;
  timeoutMs: number;
}

interface Job {
  deliveryId: string;
  endpointId: string;
  body: string;
  event: RecordedEvent;
}

export interface QueueRuntime {
  store(): SandboxStore;
  ids(): IdSource;
  now(): number;
  policy: DeliveryPolicy;
}

const receiverKey = (url: string): string => new URL(url).href;

/**
 * The sandbox's outbox and delivery worker. An event fans out when it is recorded, by the contract's rule
 * (one `pending` row per receiving endpoint, in the same synchronous step as the change); each endpoint's
 * rows are then attempted one at a time, in order, so a failure run is counted exactly as the service
 * counts it. Each attempt signs with the endpoint's secrets of that moment, and settles its row and the
 * endpoint's failure run in the sandbox's state of that moment (a `seed()` meanwhile is respected; a
 * `reset()` drops everything still queued).
 */
export class DeliveryQueue {
  private readonly chains = new Map<string, Promise<void>>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly receivers = new Map<string, WebhookReceiver>();
  private log: SentDelivery[] = [];
  private generation = 0;

  constructor(
    private readonly runtime: QueueRuntime,
    private readonly initialReceivers: Readonly<Record<string, WebhookReceiver>> = {},
  ) {
    for (const [url, receiver] of Object.entries(initialReceivers)) this.receive(url, receiver);
  }

  receive(url: string, receiver: WebhookReceiver | undefined): void {
    if (receiver === undefined) this.receivers.delete(receiverKey(url));
    else if (typeof receiver === 'function') this.receivers.set(receiverKey(url), receiver);
    else throw new TypeError('a receiver is a function from a Request to a Response');
  }

  /**
   * Records the event and its `pending` deliveries now; the attempts follow. `onlyEndpoint`: the trigger's
   * test event for one endpoint, which still gets it only under the fan-out's rule.
   */
  record(store: SandboxStore, now: number, input: NewEvent, onlyEndpoint?: string): RecordedEvent {
    const ids = this.runtime.ids();
    const event: RecordedEvent = {
      id: ids.eventStream('event'),
      type: input.type,
      created_at: now,
      identity: input.identity,
    };
    const body = eventBody({ ...event, data: input.data });
    for (const row of store.endpoints.values()) {
      if (onlyEndpoint !== undefined && row.record.id !== onlyEndpoint) continue;
      if (row.removed || !endpointReceives(row.record, event, store.workspace.webhooksEnabled)) continue;
      const deliveryId = ids.eventStream('webhookDelivery');
      store.deliveries.push({
        id: deliveryId,
        endpoint_id: row.record.id,
        event_id: event.id,
        event_type: event.type,
        attempt: 1,
        status: 'pending',
        http_status: null,
        latency_ms: null,
        response_excerpt: null,
        next_attempt_at: null,
        created_at: now,
      });
      this.enqueue({ deliveryId, endpointId: row.record.id, body, event });
    }
    return event;
  }

  /** Resolves once every attempt queued so far, and any queued while waiting, is settled. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  sent(): readonly SentDelivery[] {
    return this.log.map((entry) => ({ ...entry }));
  }

  /**
   * Forgets the queue and what was sent, and goes back to the receivers given at creation; attempts on the
   * wire finish without writing anything.
   */
  reset(): void {
    this.generation += 1;
    this.chains.clear();
    this.log = [];
    this.receivers.clear();
    for (const [url, receiver] of Object.entries(this.initialReceivers)) this.receive(url, receiver);
  }

  private enqueue(job: Job): void {
    const generation = this.generation;
    const previous = this.chains.get(job.endpointId) ?? Promise.resolve();
    const next = previous.then(() => (generation === this.generation ? this.attempt(job) : undefined));
    const tracked = next.catch(() => undefined);
    this.chains.set(job.endpointId, tracked);
    this.inFlight.add(tracked);
    void tracked.then(() => this.inFlight.delete(tracked));
  }

  private rowOf(deliveryId: string): WebhookDelivery | undefined {
    return this.runtime.store().deliveries.find((row) => row.id === deliveryId);
  }

  private async attempt(job: Job): Promise<void> {
    const generation = this.generation;
    const store = this.runtime.store();
    const endpoint = store.endpoints.get(job.endpointId);
    const row = this.rowOf(job.deliveryId);
    if (!row || !endpoint) return;
    // Decided at the attempt, as the service's claim decides: switched off, the row goes; a removed or
    // paused endpoint's row is settled without a request.
    if (!store.workspace.webhooksEnabled) {
      store.deliveries.splice(store.deliveries.indexOf(row), 1);
      return;
    }
    if (endpoint.removed || endpoint.record.status !== 'active') {
      row.status = endpoint.removed ? NOT_SENT_REMOVED : NOT_SENT_PAUSED;
      return;
    }
    row.status = 'sending';
    const at = this.runtime.now();
    const receiver = this.receivers.get(receiverKey(endpoint.record.url));
    const dialled = receiver !== undefined || this.mayDial(endpoint.record.url);
    const headers = dialled ? await this.headersOf(job, endpoint, at) : {};
    const entry: SentDelivery | undefined = dialled
      ? {
          deliveryId: job.deliveryId,
          endpointId: job.endpointId,
          url: endpoint.record.url,
          via: receiver ? 'handler' : 'fetch',
          headers,
          body: job.body,
          event: JSON.parse(job.body) as WebhookEvent,
          outcome: undefined,
          failure: undefined,
        }
      : undefined;
    if (entry) this.log.push(entry);
    const outcome = dialled
      ? await dial(
          {
            url: endpoint.record.url,
            headers,
            body: job.body,
            timeoutMs: this.runtime.policy.timeoutMs,
            now: this.runtime.now,
          },
          receiver,
        )
      : ({ kind: 'failed', reason: 'not dialled' } as const);
    if (generation !== this.generation) return;
    const answered = outcome.kind === 'answered';
    const ok = answered && outcome.status >= 200 && outcome.status < 300;
    const settled = this.settle(job, ok, {
      http_status: answered ? outcome.status : null,
      latency_ms: answered ? Math.max(0, outcome.answeredAt - at) : null,
      response_excerpt: answered ? outcome.excerpt : null,
    });
    if (entry) {
      entry.outcome = settled;
      entry.failure = outcome.kind === 'failed' ? outcome.reason : undefined;
    }
  }

  /** Loopback only when the test asked for it; anything else only when it asked for the network. */
  private mayDial(url: string): boolean {
    const local = LOCAL_WEBHOOK_HOSTS.has(new URL(url).hostname.toLowerCase());
    return local ? this.runtime.policy.allowLoopback : this.runtime.policy.dialPublic;
  }

  private async headersOf(job: Job, endpoint: EndpointRow, at: number): Promise<Record<string, string>> {
    const { rotating_until } = endpoint.record;
    // The new secret's `v1` first, then the old one's while the rotation lasts (spec 6.3).
    const secrets =
      endpoint.previousSecret !== null && rotating_until !== null && rotating_until > at
        ? [endpoint.secret, endpoint.previousSecret]
        : [endpoint.secret];
    return {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      [HEADER_NAMES.signature]: await signAsync(job.body, {
        secret: secrets,
        timestamp: Math.floor(at / 1000),
      }),
      [HEADER_NAMES.eventId]: job.event.id,
      [HEADER_NAMES.eventType]: job.event.type,
      [HEADER_NAMES.delivery]: job.deliveryId,
    };
  }

  /**
   * Logs the outcome on the row and keeps the endpoint's failure run, in the state of now: a success
   * clears the run, a failure lengthens it and the twentieth pauses the endpoint. Only a live, active
   * endpoint's run changes, as in the service.
   */
  private settle(
    job: Job,
    ok: boolean,
    fields: Pick<WebhookDelivery, 'http_status' | 'latency_ms' | 'response_excerpt'>,
  ): WebhookDelivery | undefined {
    const store = this.runtime.store();
    const row = store.deliveries.find((candidate) => candidate.id === job.deliveryId);
    if (!row) return undefined;
    Object.assign(row, { status: ok ? 'delivered' : 'failed', ...fields, next_attempt_at: null });
    const endpoint = store.endpoints.get(job.endpointId);
    if (endpoint && !endpoint.removed && endpoint.record.status === 'active') {
      if (ok) endpoint.record.consecutive_failures = 0;
      else {
        endpoint.record.consecutive_failures += 1;
        if (endpoint.record.consecutive_failures >= FAILURES_BEFORE_PAUSE) {
          endpoint.record.status = 'paused';
          endpoint.record.updated_at = this.runtime.now();
        }
      }
    }
    return { ...row };
  }
}
