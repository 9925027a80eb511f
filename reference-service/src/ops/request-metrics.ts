import { type Operation, toColonPath } from '@svc-kit/contract';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceMetrics } from './metrics.js';

/**
 * Counts and times every answer, labelled by the contract's operation id (else the route's pattern, or
 * `unmatched`) so the labels stay a small fixed set; a request whose client left is counted by `aborted`
 * (ops/client-gone.ts).
 */
export function recordRequestMetrics(
  app: FastifyInstance,
  metrics: ServiceMetrics,
  table: Readonly<Record<string, Operation>>,
): { aborted(request: FastifyRequest, reply: FastifyReply): void } {
  const operationOf = new Map<string, string>();
  for (const op of Object.values(table))
    operationOf.set(`${op.method} ${toColonPath(op.path)}`, op.operationId);
  const record = (request: FastifyRequest, reply: FastifyReply, status: string) => {
    const url = request.routeOptions.url;
    // HEAD is answered by the GET route: it counts under the GET's operation id, with its own method.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const operation = url === undefined ? 'unmatched' : (operationOf.get(`${method} ${url}`) ?? url);
    const labels = { operation, method: request.method, status };
    metrics.requests.inc(labels);
    metrics.requestSeconds.observe(labels, reply.elapsedTime / 1000);
    if (status === '429') metrics.rateLimited.inc({ operation });
  };
  app.addHook('onResponse', async (request, reply) => record(request, reply, String(reply.statusCode)));
  return { aborted: (request, reply) => record(request, reply, 'aborted') };
}
