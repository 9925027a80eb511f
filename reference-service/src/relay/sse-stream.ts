import { hash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { RelayedDelivery, StreamEnd } from './types.js';
import { END_MESSAGES } from './types.js';

/** A CLI that stops reading while deliveries keep coming is cut off rather than buffered for. */
const MAX_UNREAD_BYTES = 1024 * 1024;

/** The id a stream is known by: the SHA-256 of the token only its CLI holds. */
export function streamIdOf(token: string): string {
  return hash('sha256', token);
}

/**
 * A listener's stream as server-sent events: `ready` once, `delivery` per relayed delivery, a comment
 * line as heartbeat, and `end` with the reason when the service closes it. Every `data` line is one JSON
 * text (JSON escapes line breaks), which is all the framing SSE needs.
 */
export class SseListenerStream {
  /** Given to the CLI in `ready`; its answers carry it, so only this stream's CLI can report for it. */
  readonly token = randomBytes(32).toString('base64url');
  readonly id = streamIdOf(this.token);
  #ended = false;
  readonly #onEnd: (() => void)[] = [];

  constructor(private readonly response: ServerResponse) {
    response.on('close', () => this.#finish());
    response.socket?.on('close', () => this.#finish());
  }

  /** Ended here, or the connection is gone (possibly before this stream was made: the client hung up early). */
  get ended(): boolean {
    const socket = this.response.socket;
    return this.#ended || this.response.destroyed || socket === null || socket.destroyed;
  }

  /** Runs `callback` once, when the stream ends for any reason (ended here, or the connection closed). */
  onEnd(callback: () => void): void {
    if (this.ended) callback();
    else this.#onEnd.push(callback);
  }

  open(requestId: string): void {
    this.response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      'x-request-id': requestId,
      // Once the service ends a stream the connection has nothing left to carry.
      connection: 'close',
    });
  }

  event(name: string, data: unknown): void {
    this.#write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  heartbeat(): void {
    this.#write(': ping\n\n');
  }

  send(delivery: RelayedDelivery): void {
    this.event('delivery', delivery);
  }

  end(reason: StreamEnd): void {
    if (this.ended) return;
    this.event('end', { reason, message: END_MESSAGES[reason] });
    this.response.end();
    this.#finish();
  }

  #write(text: string): void {
    if (this.ended) return;
    if (this.response.writableLength > MAX_UNREAD_BYTES) {
      this.response.destroy();
      return;
    }
    this.response.write(text);
  }

  #finish(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const callback of this.#onEnd.splice(0)) callback();
  }
}
