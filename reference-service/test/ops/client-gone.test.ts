import { connect } from 'node:net';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { whenClientGone } from '../../src/ops/client-gone.js';

/** Opens `path` on a raw connection, waits for the first bytes of the answer (if `answered`), then leaves. */
async function leave(port: number, path: string, answered: boolean): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  if (answered) await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  else await new Promise((resolve) => setTimeout(resolve, 50));
  socket.destroy();
}

it('reports a caller that left before its answer, but not the end of a hijacked stream', async () => {
  const app = Fastify();
  const gone: string[] = [];
  whenClientGone(app, (request) => gone.push(request.url));
  app.get('/slow', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { ok: true };
  });
  // As the relay's `listen` route: the reply is hijacked and streamed until the caller hangs up.
  app.get('/stream', (_request, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
    reply.raw.write(': open\n\n');
  });
  app.get('/fast', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as { port: number };
  try {
    await leave(port, '/slow', false);
    await leave(port, '/stream', true);
    await leave(port, '/fast', true);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(gone).toEqual(['/slow']);
  } finally {
    await app.close();
  }
});
