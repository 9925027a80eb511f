import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How often a closing server looks again for connections it may end. */
const REAP_EVERY_MS = 50;

/**
 * Node's `server.close()` ends the keep-alive connections idle at that moment, then waits for every other
 * connection to end. Two kinds would hold a close (and so a rolling restart) for about a minute: one still
 * answering, which goes idle afterwards and stays open for its keep-alive timeout (72 s with Fastify's
 * default), and one on which no byte has arrived yet (a browser's or a load balancer's preconnection), which
 * Node counts as waiting for its first request until the headers timeout. From the start of a close both
 * are ended as soon as they are found; an answer in progress is never cut.
 */
export function endConnectionsAsTheyGoIdle(app: FastifyInstance): void {
  const connections = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  const reapOnce = () => {
    app.server.closeIdleConnections();
    for (const socket of connections) if (socket.bytesRead === 0) socket.destroy();
  };
  let reap: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    reap = setInterval(reapOnce, REAP_EVERY_MS);
    reap.unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearInterval(reap);
    done();
  });
}
