import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.js';
import { type Authorized, authorize, type Requirements } from '../../http/policy.js';

/**
 * Authorizes a call to one of the service's own routes (outside the contract's table) as the operations
 * are: the instance's clock and public origin, keys looked up through the credential cache.
 */
export function authorizeRoute(
  ctx: ServiceContext,
  request: FastifyRequest,
  requirements: Requirements,
  now = ctx.now(),
): Promise<Authorized> {
  return authorize(ctx, request, requirements, now);
}
