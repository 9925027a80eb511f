import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ListenerStream, RelayedDelivery, StreamEnd } from './relay.js';

const END_MESSAGES: Record<StreamEnd, string> = {
  replaced: 'another listen session took over this listener',
  revoked: 'the API key no longer authorizes this listener (revoked, or its permission was removed)',
  removed: 'the listener was closed',
  shutting_down: 'the service is shutting down; reconnect in a moment',
};

/**
 * A listener's stream as server-sent events: `ready` once, `delivery` per relayed delivery, a comment
 * line as heartbeat, and `end` with the reason when the service closes it. Every `data` line is one JSON
 * text (JSON escapes line breaks), which is all the framing SSE needs.
 */
export class SseListenerStream implements ListenerStream {
  readonly id = `lst_${randomBytes(8).toString('hex')}`;
  #ended = false;

  constructor(private readonly response: ServerResponse) {}

  get ended(): boolean {
    return this.#ended || this.response.destroyed;
  }

  open(requestId: string): void {
    this.response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      // Once the service ends a stream the connection has nothing left to carry.
      connection: 'close',
      'x-request-id': requestId,
    });
  }

  event(name: string, data: unknown): void {
    if (this.ended) return;
    this.response.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  heartbeat(): void {
    if (!this.ended) this.response.write(': ping\n\n');
  }

  send(delivery: RelayedDelivery): void {
    this.event('delivery', delivery);
  }

  end(reason: StreamEnd): void {
    if (this.ended) return;
    this.event('end', { reason, message: END_MESSAGES[reason] });
    this.#ended = true;
    this.response.end();
  }
}
