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

/** The members of a delivery's record, in the contract's order (the arguments of its function, migration 0018). */
const RECORD_MEMBERS = [
  'id',
  'endpoint_id',
  'event_id',
  'event_type',
  'attempt',
  'status',
  'http_status',
  'latency_ms',
  'response_excerpt',
  'next_attempt_at',
  'created_at',
] as const;

/**
 * The SQL of a delivery's record as JSON text (the database function of migration 0018): of the row's
 * columns (`row` is their qualifier: `d.`, or none in an UPDATE's SET, where they read as before the
 * update), each member in `set` given by its expression instead. Every statement that gives a row its final
 * status keeps this text on the row, with what it sets.
 */
export function deliveryRecordJsonSql(
  row: string,
  set: Partial<Record<(typeof RECORD_MEMBERS)[number], string>> = {},
): string {
  // Arguments by name: eleven in a row, six of them text, would not fail if two were swapped.
  const args = RECORD_MEMBERS.map((member) => `p_${member} => ${set[member] ?? `${row}${member}`}`);
  return `webhook_delivery_record_json(${args.join(', ')})`;
}

/**
 * One delivery row (tests and benchmarks write a log with it), its id made by the database from its event
 * and endpoint (migration 0017), as the event fan-out makes it: a second row for the same pair is refused by
 * the primary key. A row written with a final status keeps its record, as one the worker finished does.
 */
export async function insertDelivery(db: Queryable, row: Omit<WebhookDeliveryRow, 'id'>): Promise<void> {
  const record = deliveryRecordJsonSql('', {
    id: 'webhook_delivery_id($3, $2)',
    endpoint_id: '$2',
    event_id: '$3',
    event_type: '$4',
    attempt: '$5',
    status: '$6',
    http_status: '$7',
    latency_ms: '$8',
    response_excerpt: '$9',
    next_attempt_at: '$10',
    created_at: '$11',
  });
  await db.query(
    `INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, event_id, event_type, attempt, status,
       http_status, latency_ms, response_excerpt, next_attempt_at, created_at, record_json)
     VALUES (webhook_delivery_id($3, $2), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
             CASE WHEN $6 IN ('delivered', 'failed', 'abandoned') THEN ${record} END)`,
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

// A finished delivery's record as the row keeps it (migration 0018); one in flight, or one the claim failed,
// or finished before that migration, is written here by the same function.
const NEWEST_DELIVERY_RECORDS = `SELECT ${jsonArraySql(
  `SELECT COALESCE(d.record_json, ${deliveryRecordJsonSql('d.')}) AS record,
          d.created_at, d.id
     FROM webhook_deliveries d
    WHERE d.workspace_id = e.workspace_id AND d.endpoint_id = e.id
    ORDER BY d.created_at DESC, d.id DESC LIMIT $3`,
  'r.created_at DESC, r.id DESC',
  'r.record',
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
