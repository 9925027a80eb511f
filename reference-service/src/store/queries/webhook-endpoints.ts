import {
  destinationHost,
  resumedFailureRun,
  type WebhookEndpoint,
  type WebhookStatus,
  webhookEndpointSchema,
} from '@svc-kit/contract';
import { insertRow, type Queryable } from '../db.js';

/**
 * A row: the record's members are columns of the same names (the contract's schema names them), beside
 * the workspace, the sealed secrets and the removal marker.
 */
export type WebhookEndpointRow = WebhookEndpoint & {
  workspace_id: string;
  secret_enc: string | null;
  previous_secret_enc: string | null;
  deleted_at: number | null;
};

/**
 * The record's columns, and no other: the sealed secrets, the workspace and the removal marker are never read
 * for an answer. Taken from the schema once, when this module loads, so the statements are fixed texts like
 * any other.
 */
const RECORD_COLUMNS = Object.keys(webhookEndpointSchema.shape);
const VIEW_COLUMNS = RECORD_COLUMNS.join(', ');

const ROW_COLUMNS = [
  ...RECORD_COLUMNS,
  'workspace_id',
  'secret_enc',
  'previous_secret_enc',
  'deleted_at',
] as (keyof WebhookEndpointRow)[];

/** A new endpoint's row: its record (`newWebhookEndpoint`), its workspace and its sealed secret. */
export function newEndpointRow(
  workspaceId: string,
  record: WebhookEndpoint,
  secretEnc: string | null,
): WebhookEndpointRow {
  return {
    ...record,
    workspace_id: workspaceId,
    secret_enc: secretEnc,
    previous_secret_enc: null,
    deleted_at: null,
  };
}

/** Writes the row, and the host its deliveries are paced by (the contract's `destinationHost`). */
export async function insertEndpoint(db: Queryable, row: WebhookEndpointRow): Promise<void> {
  const columns = Object.fromEntries(ROW_COLUMNS.map((column) => [column, row[column]]));
  await insertRow(db, 'webhook_endpoints', { ...columns, host: destinationHost(row.url) ?? null });
}

/** The workspace's live endpoints, oldest first. */
export async function listLiveEndpoints(db: Queryable, workspaceId: string): Promise<WebhookEndpoint[]> {
  return db.query<WebhookEndpoint>(
    `SELECT ${VIEW_COLUMNS} FROM webhook_endpoints
      WHERE workspace_id = $1 AND deleted_at IS NULL
      ORDER BY created_at, id`,
    [workspaceId],
  );
}

/** Whether the workspace has this endpoint, not removed. */
export async function isLiveEndpoint(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const rows = await db.query(
    'SELECT 1 FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL',
    [workspaceId, id],
  );
  return rows.length > 0;
}

/**
 * Replaces the secret and keeps the outgoing one until `rotatingUntil`; in one statement, the contract's
 * `rotationOutcome`: a rotation during an overlap keeps the previous (original) secret and its end time,
 * and drops the secret being replaced, so at most two ever verify. `rotating_until` of the returned row is
 * the answer's `previous_accepted_until`.
 */
export async function rotateEndpointSecret(
  db: Queryable,
  workspaceId: string,
  id: string,
  sealNew: string,
  rotatingUntil: number,
  now: number,
): Promise<WebhookEndpointRow | undefined> {
  const rows = await db.query<WebhookEndpointRow>(
    `UPDATE webhook_endpoints
        SET previous_secret_enc = CASE WHEN rotating_until > $5 THEN previous_secret_enc ELSE secret_enc END,
            rotating_until = CASE WHEN rotating_until > $5 THEN rotating_until ELSE $4 END,
            secret_enc = $3, updated_at = $5
      WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL
      RETURNING *`,
    [workspaceId, id, sealNew, rotatingUntil, now],
  );
  return rows[0];
}

/**
 * A statement does not see its own changes, so the changed row comes from the UPDATE's RETURNING, the
 * others from the table as the statement began; nothing is answered when nothing changed.
 */
const SET_ENDPOINT_STATUS = `WITH changed AS (
       UPDATE webhook_endpoints
          SET status = $3,
              consecutive_failures = CASE WHEN $3 = 'active' THEN LEAST(consecutive_failures, $5)
                                          ELSE consecutive_failures END,
              updated_at = $4
        WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL
        RETURNING ${VIEW_COLUMNS}
     )
     SELECT ${VIEW_COLUMNS} FROM changed
      UNION ALL
     SELECT ${VIEW_COLUMNS} FROM webhook_endpoints
      WHERE workspace_id = $1 AND deleted_at IS NULL AND id <> $2 AND EXISTS (SELECT FROM changed)
      ORDER BY created_at, id`;

/**
 * Pauses or resumes in one statement. Resuming keeps the failure run, cut to one short of the pause (the
 * contract's `resumedFailureRun`): an endpoint paused by failures is dialled one attempt at a time and
 * paused again by its next failure; only a delivery clears the run. Pausing keeps it for the record (the
 * next claim that meets the endpoint's pending rows settles them unsent). Answers the workspace's live
 * endpoints after the change, oldest first, or `undefined` when no live endpoint has this id.
 */
export async function setEndpointStatus(
  db: Queryable,
  workspaceId: string,
  id: string,
  status: WebhookStatus,
  now: number,
): Promise<WebhookEndpoint[] | undefined> {
  const rows = await db.query<WebhookEndpoint>(SET_ENDPOINT_STATUS, [
    workspaceId,
    id,
    status,
    now,
    resumedFailureRun(Number.MAX_SAFE_INTEGER),
  ]);
  return rows.length === 0 ? undefined : rows;
}

/** Soft delete: the row stays for the delivery log, the secrets are forgotten. */
export async function removeEndpoint(
  db: Queryable,
  workspaceId: string,
  id: string,
  now: number,
): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE webhook_endpoints
        SET deleted_at = $3, updated_at = $3, secret_enc = NULL, previous_secret_enc = NULL, rotating_until = NULL
      WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL
      RETURNING id`,
    [workspaceId, id, now],
  );
  return rows.length === 1;
}

/**
 * The URLs of a workspace's live endpoints that are not relay listeners, with the workspace's row locked
 * against a racing create (the caps count them: at most 20 rows).
 */
export async function liveEndpointUrlsLocked(db: Queryable, workspaceId: string): Promise<string[]> {
  await db.query('SELECT id FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
  const rows = await db.query<{ url: string }>(
    `SELECT url FROM webhook_endpoints
      WHERE workspace_id = $1 AND listener_seen_at IS NULL AND deleted_at IS NULL`,
    [workspaceId],
  );
  return rows.map((row) => row.url);
}
