import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Calls `gone` for every request whose client left before the answer was fully written (a load balancer's
 * timeout, a caller that gave up): no `onResponse` runs for it. Fastify's own `onRequestAbort` misses a
 * request whose body had been read, such as a POST waiting for the database.
 */
export function whenClientGone(
  app: FastifyInstance,
  gone: (request: FastifyRequest, reply: FastifyReply) => void,
): void {
  app.addHook('onRequest', (request, reply, done) => {
    const response = reply.raw;
    response.once('close', () => {
      // `sent` also covers a hijacked reply (a `listen` stream): its caller ending it is its normal end.
      if (!response.writableFinished && !reply.sent) gone(request, reply);
    });
    done();
  });
}
