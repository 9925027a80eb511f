import type { Queryable } from '../db.js';

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

export async function insertDelivery(db: Queryable, row: WebhookDeliveryRow): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status,
       http_status, latency_ms, response_excerpt, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      row.id,
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

/** Newest first, ties broken by id so that the order is total and stable between calls. */
export async function listNewestDeliveries(
  db: Queryable,
  workspaceId: string,
  endpointId: string,
  limit: number,
): Promise<WebhookDeliveryRow[]> {
  return db.query<WebhookDeliveryRow>(
    `SELECT * FROM webhook_deliveries WHERE workspace_id = $1 AND endpoint_id = $2
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [workspaceId, endpointId, limit],
  );
}
