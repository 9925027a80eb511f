// The behaviour every adapter must share, run against each one over its real transport.

import { connect } from 'node:net';
import { MAX_RESPONSE_BYTES, type Webhooks } from '@svc-kit/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { BODY, EVENT, errorOf, recordingWebhooks, signedDelivery } from './fixtures';

export interface AdapterUnderTest {
  /** The webhook route's URL, for adapters served over a socket. */
  url?: string;
  /** Sends one request to the webhook route. */
  send(init: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export type StartAdapter = (
  webhooks: Webhooks,
  options: { maxBodyBytes: number },
) => Promise<AdapterUnderTest>;

const LIMIT = 2048;

/** A signed, valid `message.received` body padded to exactly `size` bytes. */
function bodyOfSize(size: number): string {
  const empty = JSON.stringify({ ...EVENT, pad: '' });
  return JSON.stringify({ ...EVENT, pad: 'x'.repeat(size - empty.length) });
}

/** A body sent as a stream, so no Content-Length is announced (chunked transfer). */
function streamed(text: string): { body: ReadableStream<Uint8Array>; duplex: 'half' } {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let offset = 0; offset < bytes.length; offset += 512)
        controller.enqueue(bytes.slice(offset, offset + 512));
      controller.close();
    },
  });
  return { body, duplex: 'half' };
}

/** Half of `text`, then the stream fails: what a server sees when the client aborts mid-upload. */
function abortedHalfWay(text: string): { body: ReadableStream<Uint8Array>; duplex: 'half' } {
  const bytes = new TextEncoder().encode(text);
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) {
        controller.error(new Error('the client gave up'));
        return;
      }
      sent = true;
      controller.enqueue(bytes.slice(0, bytes.length >> 1));
    },
  });
  return { body, duplex: 'half' };
}

/**
 * Over a raw socket: the request line, the headers announcing the whole body, half of it, then the socket
 * is destroyed. Resolves once the socket is closed.
 */
async function abortOverSocket(url: string, headers: Record<string, string>, body: string): Promise<void> {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const head = Object.entries({
    ...headers,
    host: `${hostname}:${port}`,
    'content-length': String(Buffer.byteLength(body)),
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  await new Promise<void>((resolve) =>
    socket.write(`POST ${pathname} HTTP/1.1\r\n${head}\r\n${body.slice(0, body.length >> 1)}`, () =>
      resolve(),
    ),
  );
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.destroy();
  await closed;
}

/** Lets pending callbacks and rejections surface (each round is one turn of the event loop). */
async function settleEventLoop(): Promise<void> {
  for (let round = 0; round < 10; round++) await new Promise((resolve) => setImmediate(resolve));
}

export function adapterContract(name: string, start: StartAdapter): void {
  describe(`${name}: shared adapter contract`, () => {
    let adapter: AdapterUnderTest | undefined;
    afterEach(async () => {
      await adapter?.close();
      adapter = undefined;
    });

    async function setUp() {
      const recording = recordingWebhooks();
      adapter = await start(recording.webhooks, { maxBodyBytes: LIMIT });
      return { ...recording, adapter };
    }

    it('accepts a valid delivery and runs the typed handler', async () => {
      const { adapter, received, threads, errors } = await setUp();
      const delivery = await signedDelivery();
      const response = await adapter.send({ method: 'POST', body: delivery.body, headers: delivery.headers });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ received: true });
      expect(threads).toEqual([EVENT.data.thread_id]);
      expect(received.map((event) => [event.id, event.type, event.identity])).toEqual([
        [EVENT.id, EVENT.type, EVENT.identity],
      ]);
      expect(errors).toEqual([]);
    });

    it('accepts a streamed (chunked) delivery', async () => {
      const { adapter, threads } = await setUp();
      const delivery = await signedDelivery({ body: bodyOfSize(LIMIT) });
      const response = await adapter.send({
        method: 'POST',
        headers: delivery.headers,
        ...streamed(delivery.body),
      });
      expect(response.status).toBe(200);
      expect(threads).toEqual([EVENT.data.thread_id]);
    });

    it('refuses a body changed after signing', async () => {
      const { adapter, received, errors } = await setUp();
      const delivery = await signedDelivery();
      const tampered = delivery.body.replace('thr_42', 'thr_43');
      const response = await adapter.send({ method: 'POST', body: tampered, headers: delivery.headers });
      expect(response.status).toBe(401);
      expect((await errorOf(response)).reason).toBe('no_matching_signature');
      expect(received).toEqual([]);
      expect(errors.map((error) => error.reason)).toEqual(['no_matching_signature']);
    });

    it('refuses a signature made with another secret', async () => {
      const { adapter, received } = await setUp();
      const delivery = await signedDelivery({ secret: 'whsec_someone-else' });
      const response = await adapter.send({ method: 'POST', body: delivery.body, headers: delivery.headers });
      expect(response.status).toBe(401);
      expect((await errorOf(response)).reason).toBe('no_matching_signature');
      expect(received).toEqual([]);
    });

    it('refuses a signature older than the tolerance', async () => {
      const { adapter, received } = await setUp();
      const delivery = await signedDelivery({ ageSeconds: 301 + 5 });
      const response = await adapter.send({ method: 'POST', body: delivery.body, headers: delivery.headers });
      expect(response.status).toBe(401);
      expect((await errorOf(response)).reason).toBe('timestamp_too_old');
      expect(received).toEqual([]);
    });

    it('refuses a delivery without the signature header', async () => {
      const { adapter } = await setUp();
      const headers = (await signedDelivery()).headers;
      delete headers['x-service-signature'];
      const response = await adapter.send({ method: 'POST', body: BODY, headers });
      expect(response.status).toBe(400);
      expect((await errorOf(response)).reason).toBe('missing_header');
    });

    it('takes a body of exactly the limit', async () => {
      const { adapter, threads } = await setUp();
      const body = bodyOfSize(LIMIT);
      expect(Buffer.byteLength(body)).toBe(LIMIT);
      const delivery = await signedDelivery({ body });
      const response = await adapter.send({ method: 'POST', body: delivery.body, headers: delivery.headers });
      expect(response.status).toBe(200);
      expect(threads).toEqual([EVENT.data.thread_id]);
    });

    it('answers 413 to a body one byte over the limit, announced by Content-Length', async () => {
      const { adapter, received } = await setUp();
      const delivery = await signedDelivery({ body: bodyOfSize(LIMIT + 1) });
      const response = await adapter.send({ method: 'POST', body: delivery.body, headers: delivery.headers });
      expect(response.status).toBe(413);
      const text = await response.text();
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
      const error = (JSON.parse(text) as { error: { reason: string; message: string } }).error;
      expect(Object.keys(error).sort()).toEqual(['message', 'reason']);
      expect(error.reason).toBe('body_too_large');
      expect(error.message).toContain(`${LIMIT} bytes`);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(received).toEqual([]);
    });

    it('answers 413 to a streamed body that grows past the limit', async () => {
      const { adapter, received } = await setUp();
      const delivery = await signedDelivery({ body: bodyOfSize(LIMIT * 8) });
      const response = await adapter.send({
        method: 'POST',
        headers: delivery.headers,
        ...streamed(delivery.body),
      });
      expect(response.status).toBe(413);
      expect((await errorOf(response)).reason).toBe('body_too_large');
      expect(received).toEqual([]);
    });

    it('answers 413 to a body far over the limit, and the sender still gets the answer', async () => {
      const { adapter, received } = await setUp();
      const delivery = await signedDelivery({ body: bodyOfSize(4 * 1024 * 1024) });
      for (const init of [{ body: delivery.body }, streamed(delivery.body)]) {
        const response = await adapter.send({ method: 'POST', headers: delivery.headers, ...init });
        expect(response.status).toBe(413);
        expect((await errorOf(response)).reason).toBe('body_too_large');
      }
      expect(received).toEqual([]);
    });

    it('survives a client that aborts mid-upload, and keeps serving', async () => {
      const { adapter, received, errors } = await setUp();
      const rejections: unknown[] = [];
      const onRejection = (reason: unknown) => rejections.push(reason);
      process.on('unhandledRejection', onRejection);
      try {
        const delivery = await signedDelivery();
        if (adapter.url !== undefined) {
          await abortOverSocket(adapter.url, delivery.headers, delivery.body);
        } else {
          // Handed a Request whose body stream fails half-way, the adapter answers it.
          const response = await adapter.send({
            method: 'POST',
            headers: delivery.headers,
            ...abortedHalfWay(delivery.body),
          });
          expect([response.status, (await errorOf(response)).reason]).toEqual([400, 'body_incomplete']);
        }
        await settleEventLoop();

        const next = await signedDelivery({ body: BODY.replace('thr_42', 'thr_42b') });
        const response = await adapter.send({ method: 'POST', body: next.body, headers: next.headers });
        expect(response.status).toBe(200);
        await settleEventLoop();
      } finally {
        process.off('unhandledRejection', onRejection);
      }
      expect(rejections).toEqual([]);
      expect(received.map((event) => event.data)).toEqual([{ ...EVENT.data, thread_id: 'thr_42b' }]);
      expect(errors).toEqual([]);
    });

    it('refuses a malformed signature header with a typed reason, not a crash', async () => {
      const { adapter } = await setUp();
      const delivery = await signedDelivery();
      const headers = { ...delivery.headers, 'x-service-signature': 't=abc,v1=' };
      const response = await adapter.send({ method: 'POST', body: delivery.body, headers });
      expect(response.status).toBe(400);
      expect((await errorOf(response)).reason).toBe('malformed_header');
    });
  });
}
