import type { WebhookDelivery } from '@svc-kit/contract';
import type { Queryable } from '../db.js';

/** An event as stored: `body` is the exact text that was signed and sent. */
export interface StoredEventRow {
  id: string;
  type: string;
  created_at: number;
  body: string;
}

/** One endpoint's delivery record of an event, with the endpoint as it stands now (removed or not). */
export interface EventAttempt {
  delivery: WebhookDelivery;
  endpoint: { id: string; url: string; removed: boolean };
}

/**
 * How long before an event an endpoint may have been removed and still have a row of it. The removal's
 * time is taken when its request starts and the fan-out sees the endpoint live until that removal
 * commits, so a row can exist for an event stamped a little after the removal (and instances' clocks
 * differ). Minutes cover both; the endpoints removed in that span are few, since creating them is paced.
 */
export const REMOVAL_SLACK_MS = 5 * 60_000;

/** $1 workspace, $2 event, $3 its created_at, $4 REMOVAL_SLACK_MS (exported for the cost test). */
export const ATTEMPTS_OF_EVENT = `SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.attempt, d.status, d.http_status,
        d.latency_ms, d.response_excerpt, d.next_attempt_at, d.created_at, e.url, e.deleted_at
   FROM webhook_endpoints e
   JOIN LATERAL (
     SELECT * FROM webhook_deliveries
      WHERE id = webhook_delivery_id($2, e.id) AND workspace_id = e.workspace_id AND endpoint_id = e.id
   ) d ON true
  WHERE e.workspace_id = $1 AND e.created_at <= $3
    AND (e.deleted_at IS NULL OR e.deleted_at >= $3::bigint - $4::bigint)
  ORDER BY e.created_at, e.id`;

/**
 * The workspace's event and every delivery record of it. The fan-out gives a row only to an endpoint
 * created no later than the event and live when it ran, so only those endpoints are read (at most the
 * workspace's cap of live ones, plus those removed just before), and each one's row is found by primary
 * key (a delivery's id is a digest of its event and endpoint, migration 0017); webhook_deliveries has no
 * index on event_id and needs none. Rows written before 0017 kept random ids and are not found, as with
 * the log's event filter. `undefined` when the workspace has no such event: never made, another
 * workspace's, or removed by retention (which removes its delivery records a day earlier).
 */
export async function eventWithAttempts(
  db: Queryable,
  workspaceId: string,
  eventId: string,
): Promise<{ event: StoredEventRow; attempts: EventAttempt[] } | undefined> {
  const [event] = await db.query<StoredEventRow>(
    'SELECT id, type, created_at, body FROM events WHERE id = $1 AND workspace_id = $2',
    [eventId, workspaceId],
  );
  if (event === undefined) return undefined;
  const rows = await db.query<WebhookDelivery & { url: string; deleted_at: number | null }>(
    ATTEMPTS_OF_EVENT,
    [workspaceId, eventId, event.created_at, REMOVAL_SLACK_MS],
  );
  return {
    event,
    attempts: rows.map(({ url, deleted_at, ...delivery }) => ({
      delivery,
      endpoint: { id: delivery.endpoint_id, url, removed: deleted_at !== null },
    })),
  };
}
