import { hash } from 'node:crypto';
import { checkTriggeredEvent, sampleEventData, TRIGGER_ENDPOINT_NOT_FOUND } from '@svc-kit/contract';
import { type EventType, isEventType } from '@svc-kit/webhooks';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ServiceContext } from '../../context.js';
import { budget, limitBucket } from '../../domain/door-limits.js';
import { ServiceError } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { SANDBOX_WORKSPACE_ID } from '../../domain/sandbox-workspace.js';
import { spendBudget } from '../../http/budget-guard.js';
import { parse } from '../../http/parse.js';
import { authorize } from '../../http/policy.js';
import type { Queryable } from '../../store/db.js';
import { refuseOverBacklog } from '../../store/queries/backlog.js';
import { insertEvent } from '../../store/queries/events.js';
import { listIdentities } from '../../store/queries/identities.js';
import { isLiveEndpoint } from '../../store/queries/webhook-endpoints.js';

/** Made-up but well-formed `data` for each event type: the contract's table, with fresh draws. */
function sampleData(type: EventType): Record<string, unknown> {
  const contact = `sha256:${hash('sha256', newId('contact'))}`;
  return sampleEventData(type, { contact, threadId: newId('thr') });
}

const triggerBody = z.strictObject({
  type: z.string(),
  /** Identity slug; default: the workspace's first identity by slug. */
  identity: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  /**
   * An endpoint id of the workspace: the event goes to it alone (if it is active and takes the type), as a
   * test event sent from one endpoint's page. Default: every endpoint, as a real event.
   */
  endpoint: z.string().optional(),
});

/** The route's body (or the CLI's arguments), the workspace, and `now`: the event's `created_at`. */
type TriggerInput = z.infer<typeof triggerBody> & { workspaceId: string; now: number };

/**
 * Emits one catalogued event for an identity of the workspace, through the same outbox as real changes. A
 * trigger that is not valid is `invalid_request`.
 */
export async function triggerEvent(
  db: Queryable,
  input: TriggerInput,
  /** Runs once the trigger is found valid, before its event is written (the route spends the budget). */
  beforeWrite?: () => Promise<unknown>,
) {
  // Exactly the catalogue's fields (the contract's rule, which the mock's trigger applies too).
  const sample = isEventType(input.type) ? sampleData(input.type) : {};
  const checked = checkTriggeredEvent(input.type, input.data ?? sample);
  if (!checked.ok) throw new ServiceError('invalid_request', checked.reason);
  const identities = await listIdentities(db, input.workspaceId);
  const identity = input.identity ?? identities[0]?.slug;
  if (identity === undefined)
    throw new ServiceError('invalid_request', 'the workspace has no identity to emit the event for');
  if (!identities.some((row) => row.slug === identity)) {
    throw new ServiceError('invalid_request', `no identity ${identity} in this workspace`);
  }
  // A removed endpoint is not found either: it takes no event, and other operations on it are 404 too.
  // The contract's answer, which the mock's trigger gives too.
  if (input.endpoint !== undefined && !(await isLiveEndpoint(db, input.workspaceId, input.endpoint)))
    throw new ServiceError(TRIGGER_ENDPOINT_NOT_FOUND.code, TRIGGER_ENDPOINT_NOT_FOUND.message);
  // Before the budget is spent, so that a trigger the backlog refuses spends nothing either; its event is
  // then admitted, and what concurrent triggers add past the bound is at most that budget's burst.
  await refuseOverBacklog(db, [input.workspaceId], input.now);
  await beforeWrite?.();
  const { ok: _, ...typed } = checked;
  // One statement (the event, its outbox rows and the wake-up): atomic without a transaction around it.
  const event = await insertEvent(
    db,
    {
      ...typed,
      workspaceId: input.workspaceId,
      identity,
      createdAt: input.now,
      ...(input.endpoint === undefined ? {} : { endpointId: input.endpoint }),
    },
    'admitted',
  );
  return { id: event.id, type: checked.type, created_at: event.createdAt, identity };
}

/**
 * Test events per workspace: 10, then one every 10 seconds. Each fans out one POST per endpoint to hosts
 * the workspace names, so an unbudgeted trigger in a sandbox open to strangers is an HTTP amplifier.
 */
export const TEST_EVENTS = budget(10, 10_000, 'test events of this workspace');

/**
 * `POST /sandbox/events`: emits a catalogued event for an identity of the caller's workspace. Outside
 * /v1 on purpose (not part of the contract), and registered only when the sandbox is on (never in
 * production). Authenticated like the API (an API key or a session of the workspace) and, since it
 * writes what the workspace's receivers will trust, only for a holder of service:workspace:admin.
 */
export function registerSandboxRoutes(app: FastifyInstance, ctx: ServiceContext, budgeted: boolean): void {
  app.post('/sandbox/events', async (request, reply) => {
    const requirements = { permission: 'service:workspace:admin', stepUp: false, suspended: true } as const;
    const now = ctx.now();
    const { workspace } = await authorize(ctx, request, requirements, now);
    const body = parse(triggerBody, request.body, 'body');
    // Spent only for a valid trigger: a refused one spends nothing. The seeded sandbox workspace is the
    // operator's own and is exempt: benches and `svc-webhooks trigger` fire it in bulk.
    const spend =
      budgeted && workspace.id !== SANDBOX_WORKSPACE_ID
        ? () => spendBudget(ctx.db, limitBucket('test-events', workspace.id), TEST_EVENTS, now)
        : undefined;
    const event = await triggerEvent(ctx.db, { workspaceId: workspace.id, ...body, now }, spend);
    return reply.code(201).send({ event });
  });
}
