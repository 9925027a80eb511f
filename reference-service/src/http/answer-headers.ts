import type { FastifyInstance } from 'fastify';

/**
 * What every answer carries unless its route says more (the portal's pages and the OAuth refusal page set
 * their own policy later in the request): `nosniff`, and a policy under which an answer opened as a page,
 * such as an error body echoing part of the input, can run and load nothing, nor be framed.
 */
export const ANSWER_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/**
 * Sets them, with the request id every answer carries, first thing. A callback hook rather than an async
 * one: the hook runs on every request, and an async hook costs a promise and a microtask each time.
 */
export function registerAnswerHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    reply.headers(ANSWER_HEADERS);
    done();
  });
}
