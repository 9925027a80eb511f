import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardedClient, type GuardedClientOptions } from '../../src/outbound/guarded-client.js';
import { rawReceiver } from './raw-receiver.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

function client(options: Partial<GuardedClientOptions> = {}) {
  const made = createGuardedClient({
    resolve: async () => ['127.0.0.1'],
    allowLocalhost: true,
    ...options,
  });
  open.push(made);
  return made;
}

async function receiver(answer: (socket: Socket) => void) {
  const made = await rawReceiver(answer);
  open.push(made);
  return made;
}

const head = (status: string, headers: Record<string, string | number>) =>
  `HTTP/1.1 ${status}\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

describe('the guarded client', () => {
  it('reads at most the excerpt of an endless answer, then drops the connection', async () => {
    // The answer never ends: only a client that stops reading and closes the connection gets an outcome.
    const chunk = 'x'.repeat(64 * 1024);
    const target = await receiver((socket) => {
      socket.write(head('200 OK', { 'content-length': 1e12 }));
      const pour = () => {
        while (socket.writable && socket.write(chunk));
      };
      socket.on('drain', pour);
      pour();
    });
    const outcome = await client().post(target.url, {}, '{}');
    expect(outcome).toMatchObject({ kind: 'answered', status: 200, excerpt: 'x'.repeat(500) });
    // undici then opens a spare connection for the aborted request and sends nothing on it: one request.
    await target.firstClosed();
    expect(target.received().match(/POST \/hook/g)).toHaveLength(1);
  });

  it('gives up after the total timeout on a receiver that never answers, and closes the connection', async () => {
    const target = await receiver(() => {});
    const started = performance.now();
    const outcome = await client({ totalTimeoutMs: 300 }).post(target.url, {}, '{}');
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'timed out', code: 'timeout' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    await target.firstClosed();
  });

  it('keeps the status and what came of an answer still trickling in at the total timeout', async () => {
    let trickle: NodeJS.Timeout | undefined;
    const target = await receiver((socket) => {
      socket.write(`${head('200 OK', { 'content-length': 10_000 })}ab`);
      trickle = setInterval(() => socket.writable && socket.write('c'), 20);
    });
    const outcome = await client({ totalTimeoutMs: 300 }).post(target.url, {}, '{}');
    clearInterval(trickle);
    expect(outcome).toMatchObject({ kind: 'answered', status: 200 });
    if (outcome.kind === 'answered') expect(outcome.excerpt).toMatch(/^abc+$/);
    await target.firstClosed();
  });

  it('keeps what came of an answer that breaks off after its status line', async () => {
    const target = await receiver((socket) => {
      socket.end(`${head('503 Service Unavailable', { 'content-length': 100 })}partial`);
    });
    const outcome = await client().post(target.url, {}, '{}');
    expect(outcome).toMatchObject({ kind: 'answered', status: 503, excerpt: 'partial' });
  });

  it('does not follow a redirect: the 3xx is the answer and its target is never dialled', async () => {
    const elsewhere = await receiver((socket) => socket.end(head('200 OK', { 'content-length': 0 })));
    const target = await receiver((socket) => {
      socket.write(head('307 Temporary Redirect', { location: elsewhere.url, 'content-length': 0 }));
    });
    const outcome = await client().post(target.url, {}, '{}');
    expect(outcome).toMatchObject({ kind: 'answered', status: 307, excerpt: '' });
    expect(elsewhere.connections()).toBe(0);
  });

  it('reads past interim 1xx answers to the final status, and does not take one for the answer', async () => {
    const final = await receiver((socket) => {
      socket.write(head('103 Early Hints', { link: '</style.css>; rel=preload' }));
      socket.write(`${head('202 Accepted', { 'content-length': 4 })}done`);
    });
    expect(await client().post(final.url, {}, '{}')).toMatchObject({
      kind: 'answered',
      status: 202,
      excerpt: 'done',
    });
    const interimOnly = await receiver((socket) => socket.end(head('103 Early Hints', {})));
    expect(await client().post(interimOnly.url, {}, '{}')).toMatchObject({ kind: 'failed' });
  });

  it('sends the body, the headers given and its user agent, and times the answer', async () => {
    const target = await receiver((socket) => socket.write(head('204 No Content', {})));
    const body = JSON.stringify({ hello: 'wörld' });
    const outcome = await client({ userAgent: 'test-agent/1' }).post(
      `${target.url}?q=1`,
      { 'x-one': 'uno' },
      body,
    );
    expect(outcome).toMatchObject({ kind: 'answered', status: 204, excerpt: '' });
    expect(outcome.latencyMs).toBeGreaterThan(0);
    const request = target.received();
    expect(request.startsWith('POST /hook?q=1 HTTP/1.1\r\n')).toBe(true);
    expect(request).toContain('\r\nx-one: uno\r\n');
    expect(request).toContain('\r\nuser-agent: test-agent/1\r\n');
    expect(request).toContain(`\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`);
    expect(Buffer.from(request, 'latin1').toString().endsWith(`\r\n\r\n${body}`)).toBe(true);
  });

  it('reports a refused connection as a failure, not an answer', async () => {
    const target = await receiver(() => {});
    const url = target.url;
    await target.close();
    open.pop();
    const outcome = await client().post(url, {}, '{}');
    expect(outcome).toMatchObject({
      kind: 'failed',
      reason: 'request failed (ECONNREFUSED)',
      code: 'refused',
    });
  });
});
