import { type Operation, toColonPath } from '@svc-kit/contract';
import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from './metrics.js';

/**
 * Counts and times every answer in `metrics`, labelled by the contract's operation id (the route's
 * pattern for the service's other routes, `unmatched` for unknown paths), so that the labels stay a
 * small fixed set whatever the callers send.
 */
export function recordRequestMetrics(
  app: FastifyInstance,
  metrics: ServiceMetrics,
  table: Readonly<Record<string, Operation>>,
): void {
  const operationOf = new Map<string, string>();
  for (const op of Object.values(table))
    operationOf.set(`${op.method} ${toColonPath(op.path)}`, op.operationId);
  app.addHook('onResponse', async (request, reply) => {
    const url = request.routeOptions.url;
    const operation = url === undefined ? 'unmatched' : (operationOf.get(`${request.method} ${url}`) ?? url);
    const labels = { operation, method: request.method, status: String(reply.statusCode) };
    metrics.requests.inc(labels);
    metrics.requestSeconds.observe(labels, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) metrics.rateLimited.inc({ operation });
  });
}
