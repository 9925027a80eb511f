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

export function registerAnswerHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(ANSWER_HEADERS);
  });
}
