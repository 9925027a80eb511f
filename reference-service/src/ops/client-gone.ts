import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Calls `gone` for every request whose client left before its answer was written (no `onResponse` runs for
 * it): Fastify's `onRequestAbort` misses one whose body had been read.
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
