import type { WebhookDelivery } from '@svc-kit/contract';
import type { Queryable } from '../db.js';
import { JsonText, jsonArraySql } from '../json-text.js';

export interface WebhookDeliveryRow {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: string;
  http_status: number | null;
  latency_ms: number | null;
  response_excerpt: string | null;
  next_attempt_at: number | null;
  created_at: number;
}

/**
 * One delivery row, its id made by the database from its event and endpoint (migration 0017), as the
 * event fan-out makes it: a second row for the same pair is refused by the primary key.
 */
export async function insertDelivery(db: Queryable, row: Omit<WebhookDeliveryRow, 'id'>): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status,
       http_status, latency_ms, response_excerpt, next_attempt_at, created_at)
     VALUES (webhook_delivery_id($3, $2), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      row.workspace_id,
      row.endpoint_id,
      row.event_id,
      row.event_type,
      row.attempt,
      row.status,
      row.http_status,
      row.latency_ms,
      row.response_excerpt,
      row.next_attempt_at,
      row.created_at,
    ],
  );
}

// NaN and the infinities, which JSON has no number for, read null, as JSON.stringify writes them: no writer
// stores one (a latency is measured, or checked finite when a listener reports it), but the column allows it.
const NEWEST_DELIVERY_RECORDS = `SELECT ${jsonArraySql(
  `SELECT id, endpoint_id, event_id, event_type, attempt, status, http_status,
          CASE WHEN latency_ms > '-Infinity' AND latency_ms < 'Infinity' THEN latency_ms END AS latency_ms,
          response_excerpt, next_attempt_at, created_at
     FROM webhook_deliveries
    WHERE workspace_id = e.workspace_id AND endpoint_id = e.id
    ORDER BY created_at DESC, id DESC LIMIT $3`,
  'r.created_at DESC, r.id DESC',
)} AS records FROM webhook_endpoints e WHERE e.workspace_id = $1 AND e.id = $2`;

/**
 * The newest deliveries of an endpoint of the workspace, removed or not, newest first with ties broken by
 * id (a total order, stable between calls), as a JSON array of the API's delivery records (the claim's
 * bookkeeping stays inside); `undefined` when the workspace has no such endpoint. One statement: the
 * endpoint's existence and its log are read together.
 */
export async function listNewestDeliveryRecords(
  db: Queryable,
  workspaceId: string,
  endpointId: string,
  limit: number,
): Promise<JsonText<WebhookDelivery[]> | undefined> {
  const [row] = await db.query<{ records: string }>(NEWEST_DELIVERY_RECORDS, [
    workspaceId,
    endpointId,
    limit,
  ]);
  return row && new JsonText(row.records);
}
