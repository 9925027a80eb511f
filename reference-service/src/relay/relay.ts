import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { PostOutcome } from '../outbound/guarded-client.js';
import type { Db } from '../store/db.js';
import {
  getListenerStream,
  getRelayedDelivery,
  removeAbandonedListeners,
  setListenerStream,
} from '../store/queries/listeners.js';
import type { SseListenerStream } from './sse-stream.js';
import {
  CHANNELS,
  failed,
  RELAY_FAILURES,
  type RelayedDelivery,
  type RelaySettings,
  type StreamEnd,
} from './types.js';
import { WaitingDeliveries } from './waiting.js';

/**
 * Carries deliveries to listener endpoints over their CLI's stream instead of dialling. The delivery worker
 * claims and logs a listener's rows like any endpoint's (one attempt per event and endpoint); only the
 * transport differs. The stream may be held by another instance sharing the PostgreSQL database:
 * requests, acknowledgements and answers then travel by NOTIFY, and a worker that hears nothing back in
 * time logs the attempt failed. Nothing is ever re-sent.
 */
export class Relay {
  /** Tells this instance's own notifications from other instances'. */
  readonly #instance = randomBytes(8).toString('hex');
  readonly #streams = new Map<string, SseListenerStream>();
  readonly #waiting = new WaitingDeliveries();
  /** Deliveries this process wrote to its streams for a worker of another instance: their stream's id. */
  readonly #forwarded = new Map<string, string>();
  /** Streams of this process whose hold is being written: until it is, the database names another. */
  readonly #holding = new Map<SseListenerStream, Promise<unknown>>();
  #unlisten: (() => Promise<void>)[] = [];
  #sweep: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly settings: RelaySettings,
  ) {}

  /** How often the routes check a stream it holds (see RelaySettings). */
  get streamCheckMs(): number {
    return this.settings.streamCheckMs;
  }

  async start(): Promise<void> {
    const on = (channel: string, handle: (message: Record<string, unknown>) => void | Promise<void>) =>
      this.db.listen(channel, (payload) => {
        if (payload === '') return;
        try {
          void Promise.resolve(handle(JSON.parse(payload) as Record<string, unknown>)).catch(
            (error: unknown) => this.log.error({ err: error, channel }, 'relay notification failed'),
          );
        } catch (error) {
          this.log.error({ err: error, channel }, 'relay notification unreadable');
        }
      });
    this.#unlisten = [
      await on(CHANNELS.deliver, (m) =>
        this.#onDeliverRequest(String(m.endpoint_id), String(m.delivery_id), m),
      ),
      await on(CHANNELS.ack, (m) => this.#onAck(String(m.delivery_id))),
      await on(CHANNELS.answer, (m) => {
        this.#waiting.settle(String(m.delivery_id), m.outcome as PostOutcome);
      }),
      await on(CHANNELS.hold, (m) => {
        if (m.instance !== this.#instance) return this.#onHold(String(m.endpoint_id), String(m.stream_id));
      }),
    ];
    // Every minute at most: the listeners whose stream has been gone longer than the setting.
    this.#sweep = setInterval(
      () => void this.#sweepAbandoned(),
      Math.min(60_000, this.settings.abandonAfterMs),
    );
    this.#sweep.unref();
  }

  async #sweepAbandoned(): Promise<void> {
    try {
      const now = this.settings.now();
      const removed = await removeAbandonedListeners(this.db, now - this.settings.abandonAfterMs, now);
      if (removed > 0) this.log.info({ removed }, 'listeners left without a stream were removed');
    } catch (error) {
      this.log.error({ err: error }, 'removing abandoned listeners failed');
    }
  }

  /** Ends the listener's stream held here, if any (the listener was closed). */
  async end(endpointId: string, reason: StreamEnd): Promise<void> {
    const stream = this.#streams.get(endpointId);
    if (stream === undefined) return;
    stream.end(reason);
    await this.release(endpointId, stream);
  }

  /** Ends every stream of this process and fails the deliveries still waiting on them. */
  async stop(): Promise<void> {
    clearInterval(this.#sweep);
    this.#waiting.fail(RELAY_FAILURES.stopped);
    for (const endpointId of [...this.#streams.keys()]) await this.end(endpointId, 'shutting_down');
    for (const unlisten of this.#unlisten.splice(0)) await unlisten();
  }

  /** Whether this process holds a stream for the listener. */
  holds(endpointId: string): boolean {
    return this.#streams.has(endpointId);
  }

  /**
   * Makes `stream` the listener's one stream: an older one, here or on another instance, ends. The database
   * names the holder, so a stream that missed the announcement still learns it lost the listener (its
   * periodic check, and every relayed delivery, compare with the database).
   */
  async hold(endpointId: string, stream: SseListenerStream): Promise<void> {
    // Registered before anything is awaited, so that a stream closing meanwhile is released, not kept.
    const previous = this.#streams.get(endpointId);
    this.#streams.set(endpointId, stream);
    const written = setListenerStream(this.db, endpointId, stream.id);
    this.#holding.set(stream, written);
    try {
      await written;
    } catch (error) {
      // The database still names the previous stream: it stays the listener's.
      if (this.#streams.get(endpointId) === stream) {
        if (previous === undefined) this.#streams.delete(endpointId);
        else this.#streams.set(endpointId, previous);
      }
      throw error;
    } finally {
      this.#holding.delete(stream);
    }
    if (previous !== undefined && previous !== stream) {
      previous.end('replaced');
      await this.#failPushedTo(previous.id);
    }
    await this.#notify(CHANNELS.hold, {
      endpoint_id: endpointId,
      stream_id: stream.id,
      instance: this.#instance,
    });
  }

  /** The stream closed: deliveries written to it and not answered yet are failed, never re-sent. */
  async release(endpointId: string, stream: SseListenerStream): Promise<void> {
    if (this.#streams.get(endpointId) === stream) this.#streams.delete(endpointId);
    await this.#failPushedTo(stream.id);
  }

  /** Relays one claimed delivery; resolves with what the CLI reported, or why nothing was reported. */
  deliver({ endpoint_id, ...delivery }: RelayedDelivery & { endpoint_id: string }): Promise<PostOutcome> {
    const started = performance.now();
    const id = delivery.delivery_id;
    const outcome = this.#waiting.wait(id, started);
    const stream = this.#streams.get(endpoint_id);
    if (stream !== undefined) {
      this.#waiting.get(id)!.streamId = stream.id;
      this.#waiting.arm(id, this.settings.answerTimeoutMs, RELAY_FAILURES.noReport);
      stream.send(delivery);
    } else if (this.settings.soleInstance) {
      this.#waiting.settle(id, failed(RELAY_FAILURES.noListener, started));
    } else {
      this.#waiting.arm(id, this.settings.ackTimeoutMs, RELAY_FAILURES.noListener);
      void this.#notify(CHANNELS.deliver, {
        endpoint_id,
        delivery_id: id,
        headers: delivery.headers,
      }).catch((error: unknown) => {
        this.log.error({ err: error }, 'relaying a delivery to another instance failed');
        this.#waiting.settle(id, failed(RELAY_FAILURES.unreachable, started));
      });
    }
    return outcome;
  }

  /** The CLI's report for a delivery of this listener, received on this instance. */
  async answer(deliveryId: string, outcome: PostOutcome): Promise<void> {
    this.#forwarded.delete(deliveryId);
    if (!this.#waiting.settle(deliveryId, outcome))
      await this.#notify(CHANNELS.answer, { delivery_id: deliveryId, outcome });
  }

  async #failPushedTo(streamId: string): Promise<void> {
    this.#waiting.fail(RELAY_FAILURES.disconnected, streamId);
    for (const [deliveryId, forwardedTo] of [...this.#forwarded]) {
      if (forwardedTo !== streamId) continue;
      this.#forwarded.delete(deliveryId);
      const outcome: PostOutcome = { kind: 'failed', ...RELAY_FAILURES.disconnected, latencyMs: 0 };
      await this.#notify(CHANNELS.answer, { delivery_id: deliveryId, outcome }).catch((error: unknown) =>
        this.log.error({ err: error }, 'reporting a dropped relayed delivery failed'),
      );
    }
  }

  /** Another instance's worker asks for a delivery to a listener whose stream may be held here. */
  async #onDeliverRequest(endpointId: string, deliveryId: string, message: Record<string, unknown>) {
    const stream = this.#streams.get(endpointId);
    if (stream === undefined) return;
    const row = await getRelayedDelivery(this.db, endpointId, stream.id, deliveryId);
    if (row === undefined) return;
    this.#forwarded.set(deliveryId, stream.id);
    await this.#notify(CHANNELS.ack, { delivery_id: deliveryId });
    const { id, ...event } = row;
    stream.send({ delivery_id: id, ...event, headers: message.headers as Record<string, string> });
  }

  #onAck(deliveryId: string): void {
    const waiting = this.#waiting.get(deliveryId);
    if (waiting === undefined || waiting.streamId !== undefined) return;
    waiting.streamId = 'remote';
    this.#waiting.arm(deliveryId, this.settings.answerTimeoutMs, RELAY_FAILURES.noReport);
  }

  /** Another instance took the listener: ours ends, unless the database says ours is the later one. */
  async #onHold(endpointId: string, streamId: string): Promise<void> {
    const local = this.#streams.get(endpointId);
    if (local === undefined || local.id === streamId) return;
    // A hold of ours under way is compared once written: whichever was written last is the holder.
    const holding = this.#holding.get(local);
    if (holding !== undefined) {
      // Then the stream held here, whichever it is once the write settled, is compared.
      await holding.catch(() => {});
      return this.#onHold(endpointId, streamId);
    }
    if ((await getListenerStream(this.db, endpointId)) !== local.id) await this.end(endpointId, 'replaced');
  }

  #notify(channel: string, message: object): Promise<unknown> {
    return this.db.query('SELECT pg_notify($1, $2)', [channel, JSON.stringify(message)]);
  }
}
