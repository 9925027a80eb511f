import { DELIVERY_FILTER_WINDOW } from '@svc-kit/contract';
import { HEADER_NAMES } from '@svc-kit/webhooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ServiceContext } from '../../context.js';
import { deliveryHeaders } from '../../delivery/signing.js';
import { budget, limitBucket } from '../../domain/door-limits.js';
import { ServiceError } from '../../domain/errors.js';
import { spendBudget } from '../../http/budget-guard.js';
import { parse } from '../../http/parse.js';
import { authorize } from '../../http/policy.js';
import { DEFAULT_USER_AGENT } from '../../outbound/guarded-client.js';
import { deliveryActivity, deliveryWithBody } from '../../store/queries/delivery-activity.js';
import { eventWithAttempts } from '../../store/queries/event-attempts.js';
import { ACTIVITY_READS, ACTIVITY_WINDOWS, activityChart, SIGNATURE_ELIDED } from './activity.js';

const deliveryPath = z.strictObject({ id: z.string().min(1).max(64), delivery: z.string().min(1).max(64) });
const endpointPath = z.strictObject({ id: z.string().min(1).max(64) });
// Every event id the service mints (the contract's rules/ids.ts): anything else cannot name one.
const eventPath = z.strictObject({
  event: z.string().regex(/^evt_[0-9a-f]{24}$/, 'an event id is evt_ and 24 lowercase hex digits'),
});
/**
 * Event page reads per workspace: 60, then one a second. The read walks every endpoint the workspace made
 * before the event, removed ones kept for the retention window included (30 days of ENDPOINTS_CREATED is
 * some 21,600), not only the live ones: on PGlite's one thread a tenant re-reading without pause would
 * slow every other tenant. A person opening events from the log stays below it.
 */
export const EVENT_READS = budget(60, 1_000, 'event page reads of this workspace');
/** One answer for an event never made, another workspace's, and one retention removed: none can be told apart. */
const EVENT_NOT_FOUND =
  'no such event in this workspace (an event is removed, after its delivery records, once older than the retention window)';
const activityQuery = z.strictObject({
  window: z.enum(Object.keys(ACTIVITY_WINDOWS) as [keyof typeof ACTIVITY_WINDOWS]).default('1h'),
});

/**
 * Three reads of the portal's webhook pages that the contract has no operation for (service routes, like
 * the identity card): what one attempt sent (and why it got no answer), an endpoint's activity for its
 * chart, and one event with every endpoint's attempt of it. All need the permission of
 * listWebhookDeliveries and read only the caller's workspace; none answers a secret.
 */
export function registerWebhookPortalRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const requirements = { permission: 'service:workspace:admin', stepUp: false, suspended: false } as const;
  const workspaceOf = async (request: FastifyRequest, now: number) =>
    (await authorize(ctx, request, requirements, now)).workspace;

  // What an attempt sent: the event's stored body (the bytes signed and sent) and the headers as the
  // worker builds them, the signature's time and values elided (they are not kept, and would be secret-derived).
  // Beside the record, not in it (spec 2.3 fixes the record): the code of why a failed attempt got no answer.
  app.get('/v1/workspace/webhooks/:id/deliveries/:delivery/request', async (request) => {
    const workspace = await workspaceOf(request, ctx.now());
    const { id, delivery } = parse(deliveryPath, request.params, 'path parameters');
    const found = await deliveryWithBody(ctx.db, workspace.id, id, delivery);
    if (!found) throw new ServiceError('not_found', 'no such delivery of this webhook endpoint');
    const headers = deliveryHeaders({
      deliveryId: found.delivery.id,
      eventId: found.delivery.event_id,
      eventType: found.delivery.event_type,
      body: found.body ?? '',
      secrets: ['not used: the value is elided'],
      timestamp: 0,
    });
    return {
      delivery: found.delivery,
      url: found.url,
      no_answer_reason: found.noAnswerReason,
      request: {
        method: 'POST',
        headers: { ...headers, [HEADER_NAMES.signature]: SIGNATURE_ELIDED, 'user-agent': DEFAULT_USER_AGENT },
        body: found.body,
      },
    };
  });

  // The chart: attempts per bucket and status, with latency, over the last hour or day.
  app.get('/v1/workspace/webhooks/:id/activity', async (request) => {
    const now = ctx.now();
    const workspace = await workspaceOf(request, now);
    const { id } = parse(endpointPath, request.params, 'path parameters');
    const { window } = parse(activityQuery, request.query, 'query');
    await spendBudget(ctx.db, limitBucket('activity-reads', workspace.id), ACTIVITY_READS, now);
    const shape = ACTIVITY_WINDOWS[window];
    const since = now - shape.bucketMs * shape.buckets;
    const activity = await deliveryActivity(ctx.db, workspace.id, id, {
      since,
      bucketMs: shape.bucketMs,
      maxRows: DELIVERY_FILTER_WINDOW,
    });
    if (!activity) throw new ServiceError('not_found', 'no such webhook endpoint');
    return activityChart(window, since, activity, DELIVERY_FILTER_WINDOW);
  });

  // Another workspace's event is answered as an unknown one, so that event ids cannot be probed across
  // tenants; removed endpoints' records are included because their log stays readable (spec 2.3).
  app.get('/v1/workspace/events/:event', async (request) => {
    const now = ctx.now();
    const workspace = await workspaceOf(request, now);
    const { event } = parse(eventPath, request.params, 'path parameters');
    await spendBudget(ctx.db, limitBucket('event-reads', workspace.id), EVENT_READS, now);
    const found = await eventWithAttempts(ctx.db, workspace.id, event);
    if (!found) throw new ServiceError('not_found', EVENT_NOT_FOUND);
    return found;
  });
}
