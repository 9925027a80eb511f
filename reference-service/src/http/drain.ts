import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** How often a closing server looks again for connections it may end. */
const REAP_EVERY_MS = 50;
/**
 * How long a connection may go without an answer in progress while the server closes: a request on its way is
 * read well within it, a client that sends nothing more is let go.
 */
const QUIET_GRACE_MS = 1_000;

/** Node's own mark of the answer a connection is busy with (it detaches it once the answer is sent). */
const answering = (socket: Socket) => Boolean((socket as { _httpMessage?: unknown })._httpMessage);

/**
 * Node's `server.close()` ends only the connections idle at that moment, then waits for the others with no
 * headers timeout: a close waited for the keep-alive timeout on a connection still answering, and for ever on
 * one that sent nothing or part of a request (a preconnection, a slow client). From the start of a close, a
 * connection without an answer in progress for QUIET_GRACE_MS is ended; an answer in progress is never cut.
 */
export function endConnectionsAsTheyGoIdle(app: FastifyInstance): void {
  /** Every open connection, with the moment it was first found without an answer in progress, if it was. */
  const quietSince = new Map<Socket, number | undefined>();
  app.server.on('connection', (socket: Socket) => {
    quietSince.set(socket, undefined);
    socket.once('close', () => quietSince.delete(socket));
  });
  const reapOnce = () => {
    const now = performance.now();
    for (const [socket, since] of quietSince) {
      if (answering(socket)) quietSince.set(socket, undefined);
      else if (since === undefined) quietSince.set(socket, now);
      else if (now - since >= QUIET_GRACE_MS) socket.destroy();
    }
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
