import { DELIVERY_FILTER_WINDOW, type WebhookDelivery } from '@svc-kit/contract';
import type { Queryable } from '../db.js';

/** The optional filters of the log (the contract's, on listWebhookDeliveries). */
export interface DeliveryLogFilter {
  status?: string | undefined;
  eventType?: string | undefined;
  eventId?: string | undefined;
}

/**
 * Where the log's rows come from, before the filters. A filter by event id is a primary-key lookup (a
 * delivery's id is made from its event and endpoint, migration 0017): it finds its row at any age. Otherwise
 * the newest rows of the endpoint's index; with a status or type filter only the newest
 * `DELIVERY_FILTER_WINDOW` (the contract's bound, a constant of the text), so that a filtered read of a long
 * log costs at most that many rows.
 */
const newest = (limit: string | number) => `SELECT * FROM webhook_deliveries
   WHERE workspace_id = e.workspace_id AND endpoint_id = e.id
   ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
const BY_EVENT = `SELECT * FROM webhook_deliveries
   WHERE id = webhook_delivery_id($6, e.id) AND workspace_id = e.workspace_id AND endpoint_id = e.id`;
/** The status and type filters ($4, $5); an absent one is a null parameter, so the text stays fixed. */
const FILTERS = `WHERE ($4::text IS NULL OR w.status = $4) AND ($5::text IS NULL OR w.event_type = $5)`;

/**
 * The endpoint (any row: a removed endpoint's log stays readable) with its newest deliveries joined: one
 * statement tells a missing endpoint (no row) from an empty log (one row of nulls). The columns are the
 * contract's record; the claim's bookkeeping stays inside.
 */
function logSql(source: string, filters: string): string {
  return `SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.attempt, d.status, d.http_status,
         d.latency_ms, d.response_excerpt, d.next_attempt_at, d.created_at
    FROM webhook_endpoints e
    LEFT JOIN LATERAL (
      SELECT * FROM (${source}) w ${filters}
       ORDER BY created_at DESC, id DESC LIMIT $3
    ) d ON true
   WHERE e.workspace_id = $1 AND e.id = $2
   ORDER BY d.created_at DESC, d.id DESC`;
}
const NEWEST_LOG = logSql(newest('$3'), '');
const FILTERED_LOG = logSql(newest(Math.trunc(DELIVERY_FILTER_WINDOW)), FILTERS);
const LOG_BY_EVENT = logSql(BY_EVENT, FILTERS);

/**
 * An endpoint's newest deliveries passing `filter`, removed endpoint or not, newest first with ties broken by
 * id (a total order, stable between calls); `undefined` when the workspace has no such endpoint.
 */
export async function listNewestDeliveries(
  db: Queryable,
  workspaceId: string,
  endpointId: string,
  limit: number,
  filter: DeliveryLogFilter = {},
): Promise<WebhookDelivery[] | undefined> {
  const { status, eventType, eventId } = filter;
  const filters = [status ?? null, eventType ?? null];
  const [sql, values] =
    eventId !== undefined
      ? [LOG_BY_EVENT, [...filters, eventId]]
      : status !== undefined || eventType !== undefined
        ? [FILTERED_LOG, filters]
        : [NEWEST_LOG, []];
  const rows = await db.query<WebhookDelivery | { [K in keyof WebhookDelivery]: null }>(sql, [
    workspaceId,
    endpointId,
    limit,
    ...values,
  ]);
  if (rows.length === 0) return undefined;
  return rows.filter((row): row is WebhookDelivery => row.id !== null);
}
