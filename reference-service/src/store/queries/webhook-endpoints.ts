import { destinationHost, resumedFailureRun } from '@svc-kit/contract';
import type { Queryable } from '../db.js';

export interface WebhookEndpointRow {
  id: string;
  workspace_id: string;
  url: string;
  events: string[];
  status: 'active' | 'paused';
  consecutive_failures: number;
  secret_enc: string | null;
  previous_secret_enc: string | null;
  rotating_until: number | null;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
}

/** What an answer shows of an endpoint (features/webhooks/records.ts). */
export type WebhookEndpointView = Pick<
  WebhookEndpointRow,
  'id' | 'url' | 'events' | 'status' | 'consecutive_failures' | 'rotating_until' | 'created_at' | 'updated_at'
>;

/**
 * The columns of a view, and no other: the sealed secrets, the workspace and the removal marker are never
 * shown, and on a 10-endpoint list the secrets alone were a third of the bytes the database encoded and
 * this side decoded.
 */
const VIEW_COLUMNS = 'id, url, events, status, consecutive_failures, rotating_until, created_at, updated_at';

/** A new endpoint's row: active, no failures, no rotation under way. */
export function newEndpointRow(fields: {
  id: string;
  workspaceId: string;
  url: string;
  events: string[];
  secretEnc: string;
  now: number;
}): WebhookEndpointRow {
  return {
    id: fields.id,
    workspace_id: fields.workspaceId,
    url: fields.url,
    events: fields.events,
    status: 'active',
    consecutive_failures: 0,
    secret_enc: fields.secretEnc,
    previous_secret_enc: null,
    rotating_until: null,
    created_at: fields.now,
    updated_at: fields.now,
    deleted_at: null,
  };
}

/** Writes the row, and the host its deliveries are paced by (the contract's `destinationHost`). */
export async function insertEndpoint(db: Queryable, row: WebhookEndpointRow): Promise<void> {
  await db.query(
    `INSERT INTO webhook_endpoints (id, workspace_id, url, events, status, consecutive_failures, secret_enc,
       previous_secret_enc, rotating_until, created_at, updated_at, deleted_at, host)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      row.id,
      row.workspace_id,
      row.url,
      row.events,
      row.status,
      row.consecutive_failures,
      row.secret_enc,
      row.previous_secret_enc,
      row.rotating_until,
      row.created_at,
      row.updated_at,
      row.deleted_at,
      destinationHost(row.url) ?? null,
    ],
  );
}

/** The workspace's live endpoints, oldest first. */
export async function listLiveEndpoints(db: Queryable, workspaceId: string): Promise<WebhookEndpointView[]> {
  return db.query<WebhookEndpointView>(
    `SELECT ${VIEW_COLUMNS} FROM webhook_endpoints
      WHERE workspace_id = $1 AND deleted_at IS NULL
      ORDER BY created_at, id`,
    [workspaceId],
  );
}

/** Any endpoint of the workspace, removed ones included (their delivery log stays readable). */
export async function getEndpointEvenRemoved(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  const rows = await db.query<WebhookEndpointRow>(
    'SELECT * FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2',
    [workspaceId, id],
  );
  return rows[0];
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
 * Announced (NOTIFY, payload: the endpoint's id) whenever an endpoint stops being dialled: paused, removed,
 * or its workspace's webhooks switched off. Delivery workers then give back the rows they claimed ahead
 * for it, never dialled, and the next claim settles them as the change says.
 */
export const ENDPOINT_STOPPED_CHANNEL = 'webhook_endpoint_stopped';

/** Tells every delivery worker that these endpoints are no longer dialled (delivered at commit). */
export async function announceEndpointsStopped(db: Queryable, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query('SELECT pg_notify($1, id) FROM unnest($2::text[]) AS id', [ENDPOINT_STOPPED_CHANNEL, ids]);
}

/**
 * Pausing or resuming in one statement: the change, the announcement of a pause to the delivery workers,
 * and the workspace's live endpoints after it. A statement does not see its own changes, so the changed
 * row comes from the UPDATE's RETURNING, the others from the table as the statement began; nothing is
 * answered when nothing changed. `pg_notify` runs in RETURNING, computed for every changed row.
 */
const SET_ENDPOINT_STATUS = `WITH changed AS (
       UPDATE webhook_endpoints
          SET status = $3,
              consecutive_failures = CASE WHEN $3 = 'active' THEN LEAST(consecutive_failures, $6)
                                          ELSE consecutive_failures END,
              updated_at = $4
        WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL
        RETURNING ${VIEW_COLUMNS}, CASE WHEN $3 = 'paused' THEN pg_notify($5, id)::text END AS announced
     )
     SELECT ${VIEW_COLUMNS} FROM changed
      UNION ALL
     SELECT ${VIEW_COLUMNS} FROM webhook_endpoints
      WHERE workspace_id = $1 AND deleted_at IS NULL AND id <> $2 AND EXISTS (SELECT FROM changed)
      ORDER BY created_at, id`;

/**
 * Resuming (`active`) keeps the failure run, cut to one short of the pause (the contract's
 * `resumedFailureRun`): an endpoint paused by failures is dialled one attempt at a time and paused again
 * by its next failure; only a delivery clears the run. Pausing keeps it for the record and announces it to
 * the delivery workers. Answers the workspace's live endpoints after the change, oldest first, or `undefined`
 * when no live endpoint has this id.
 */
export async function setEndpointStatus(
  db: Queryable,
  workspaceId: string,
  id: string,
  status: 'active' | 'paused',
  now: number,
): Promise<WebhookEndpointView[] | undefined> {
  const rows = await db.query<WebhookEndpointView>(SET_ENDPOINT_STATUS, [
    workspaceId,
    id,
    status,
    now,
    ENDPOINT_STOPPED_CHANNEL,
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
  await announceEndpointsStopped(
    db,
    rows.map((row) => row.id),
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
