import { ID_PREFIXES } from '@svc-kit/contract';
import type { EventType } from '@svc-kit/webhooks';
import { newId } from '../../domain/ids.js';
import type { Queryable } from '../db.js';

/** The channel a committed event's `pg_notify` wakes the delivery workers on (see src/delivery/). */
export const DELIVERY_CHANNEL = 'svc_webhook_deliveries';

export interface NewEvent {
  workspaceId: string;
  identity: string;
  type: EventType;
  data: Record<string, unknown>;
}

export interface EventRow {
  id: string;
  workspace_id: string;
  identity: string;
  type: string;
  body: string;
  created_at: number;
}

/**
 * Records an event and its outbox rows. Call it inside the transaction of the change that causes the
 * event (transactional outbox): both commit together or neither does, and `pg_notify` is only delivered to
 * the workers at commit.
 *
 * Fan-out happens here, at event time: one `pending` delivery per endpoint of the workspace that is live,
 * `active`, created no later than the event, and whose filter is empty or names the type, and only when
 * the workspace's `webhooks_enabled` flag is on now. An event recorded while the flag is off has no
 * delivery rows, so it is never sent, even after the flag is turned on.
 */
export async function insertEvent(
  db: Queryable,
  input: NewEvent,
): Promise<{ id: string; createdAt: number }> {
  const id = newId(ID_PREFIXES.event);
  const createdAt = Date.now();
  // Ids and metadata only; the exact bytes are stored so that what is signed never depends on re-encoding.
  const body = JSON.stringify({
    id,
    type: input.type,
    created_at: createdAt,
    identity: input.identity,
    data: input.data,
  });
  await db.query(
    `INSERT INTO events (id, workspace_id, identity, type, body, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [id, input.workspaceId, input.identity, input.type, body, createdAt],
  );
  const outbox = await db.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status,
       http_status, latency_ms, response_excerpt, next_attempt_at, created_at)
     SELECT '${ID_PREFIXES.webhookDelivery}_' || replace(gen_random_uuid()::text, '-', ''), e.workspace_id, e.id, $2, $3, 1, 'pending',
            NULL, NULL, NULL, NULL, $4
       FROM webhook_endpoints e
       JOIN workspaces w ON w.id = e.workspace_id
      WHERE e.workspace_id = $1
        AND w.webhooks_enabled
        AND e.deleted_at IS NULL
        AND e.status = 'active'
        AND e.created_at <= $4
        AND (cardinality(e.events) = 0 OR $3 = ANY (e.events))
     RETURNING id`,
    [input.workspaceId, id, input.type, createdAt],
  );
  if (outbox.length > 0) await db.query('SELECT pg_notify($1, $2)', [DELIVERY_CHANNEL, '']);
  return { id, createdAt };
}

export async function getEvent(db: Queryable, id: string): Promise<EventRow | undefined> {
  const rows = await db.query<EventRow>('SELECT * FROM events WHERE id = $1', [id]);
  return rows[0];
}
