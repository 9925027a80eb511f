import type { WebhookDelivery } from '@svc-kit/contract';
import { isNoAnswerReason, type NoAnswerReason } from '../../domain/no-answer-reasons.js';
import type { Queryable } from '../db.js';

/** Attempts of one status in one bucket, with the latency of the bucket's answered attempts (all statuses). */
export interface ActivityRow {
  bucket: number;
  status: string;
  attempts: number;
  latency_p50_ms: number | null;
  latency_max_ms: number | null;
}

/**
 * An endpoint's attempts since `since`, counted per bucket of `bucketMs` and per status, with the median and
 * longest latency of each; only the window's newest `maxRows` are read, so a busy endpoint's chart costs a
 * bounded part of the index (`webhook_deliveries_newest`). `undefined` when the workspace has no such
 * endpoint (removed ones count: their log stays readable).
 */
export async function deliveryActivity(
  db: Queryable,
  workspaceId: string,
  endpointId: string,
  window: { since: number; bucketMs: number; maxRows: number },
): Promise<{ rows: ActivityRow[]; read: number } | undefined> {
  const found = await db.query<{ id: string }>(
    'SELECT id FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2',
    [workspaceId, endpointId],
  );
  if (found.length === 0) return undefined;
  const rows = await db.query<ActivityRow & { read: number }>(
    `WITH recent AS (
       SELECT ((created_at - $3) / $4)::int AS bucket, status, latency_ms FROM webhook_deliveries
        WHERE workspace_id = $1 AND endpoint_id = $2 AND created_at >= $3
        ORDER BY created_at DESC, id DESC LIMIT $5
     ), latency AS (
       SELECT bucket, percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS latency_p50_ms,
              max(latency_ms) AS latency_max_ms
         FROM recent GROUP BY bucket
     )
     SELECT c.bucket, c.status, c.attempts, l.latency_p50_ms, l.latency_max_ms,
            (SELECT count(*) FROM recent)::int AS read
       FROM (SELECT bucket, status, count(*)::int AS attempts FROM recent GROUP BY 1, 2) c
       JOIN latency l USING (bucket)
      ORDER BY c.bucket, c.status`,
    [workspaceId, endpointId, window.since, window.bucketMs, window.maxRows],
  );
  return {
    read: rows[0]?.read ?? 0,
    rows: rows.map(({ read: _read, ...row }) => row),
  };
}

/** One attempt as the portal opens it: the record, the endpoint's URL, what was sent and why no answer. */
export interface OpenedAttempt {
  delivery: WebhookDelivery;
  url: string;
  /** The event's stored body, null once removed. */
  body: string | null;
  /** Why a failed attempt got no answer; null when it was answered, never dialled, or logged before 0028. */
  noAnswerReason: NoAnswerReason | null;
}

/** One attempt of an endpoint of the workspace, with the stored body of its event (null once removed). */
export async function deliveryWithBody(
  db: Queryable,
  workspaceId: string,
  endpointId: string,
  deliveryId: string,
): Promise<OpenedAttempt | undefined> {
  const rows = await db.query<
    WebhookDelivery & { url: string; body: string | null; no_answer_reason: string | null }
  >(
    `SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.attempt, d.status, d.http_status,
            d.latency_ms, d.response_excerpt, d.next_attempt_at, d.created_at, d.no_answer_reason, e.url,
            ev.body
       FROM webhook_deliveries d
       JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
       LEFT JOIN events ev ON ev.workspace_id = d.workspace_id AND ev.id = d.event_id
      WHERE d.workspace_id = $1 AND d.endpoint_id = $2 AND d.id = $3`,
    [workspaceId, endpointId, deliveryId],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  const { url, body, no_answer_reason, ...delivery } = row;
  // The column's CHECK holds the same codes; a value this build does not know reads as none.
  const noAnswerReason = isNoAnswerReason(no_answer_reason) ? no_answer_reason : null;
  return { delivery, url, body, noAnswerReason };
}
