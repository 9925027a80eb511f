import type { WebhookEndpoint } from '@svc-kit/contract';
import type { Queryable } from '../db.js';
import { JsonText, jsonArraySql } from '../json-text.js';
import { KEY_CHECK_SLOT } from './key-principal.js';

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

export async function insertEndpoint(db: Queryable, row: WebhookEndpointRow): Promise<void> {
  await db.query(
    `INSERT INTO webhook_endpoints (id, workspace_id, url, events, status, consecutive_failures, secret_enc,
       previous_secret_enc, rotating_until, created_at, updated_at, deleted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
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
    ],
  );
}

/**
 * Row `r`'s record at `$<now>`: its kept text (migration 0019), else a fresh one. Nothing clears a past
 * overlap's column, so its member is rewritten as null: JSON escapes quotes in strings, so the bare-quoted
 * key can only be the member itself.
 */
const endpointRecordSql = (now: number) =>
  `CASE WHEN r.record_json IS NULL
          THEN webhook_endpoint_record_json(p_id => r.id, p_url => r.url, p_events => r.events,
            p_status => r.status, p_consecutive_failures => r.consecutive_failures,
            p_rotating_until => CASE WHEN r.rotating_until > $${now} THEN r.rotating_until END,
            p_created_at => r.created_at, p_updated_at => r.updated_at)
        WHEN r.rotating_until <= $${now}
          THEN replace(r.record_json, '"rotating_until":' || r.rotating_until || ',', '"rotating_until":null,')
        ELSE r.record_json END`;

const LIVE_ENDPOINT_RECORDS = `SELECT ${jsonArraySql(
  `SELECT ${VIEW_COLUMNS}, record_json
     FROM webhook_endpoints
    WHERE workspace_id = $1 AND deleted_at IS NULL`,
  'r.created_at, r.id',
  endpointRecordSql(2),
)} AS records`;

/** The workspace's live endpoints, oldest first, as the JSON array of `endpointRecord`s at `now`. */
export async function listLiveEndpointRecords(
  db: Queryable,
  workspaceId: string,
  now: number,
): Promise<JsonText<WebhookEndpoint[]>> {
  const [row] = await db.query<{ records: string }>(LIVE_ENDPOINT_RECORDS, [workspaceId, now]);
  // A statement with no FROM answers one row; none only on a key-checked connection whose key changed,
  // which then throws before answering (store/key-checked.ts).
  return new JsonText(row!.records);
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
 * and the workspace's live endpoints after it, as the JSON array of their records. A statement does not
 * see its own changes, so the changed row comes from the UPDATE's RETURNING (after waiting on a concurrent
 * change of the row, the row as written, with the record the trigger kept), the others from the scan,
 * which reads the rows as the statement began. The outer query reads `changed`, so nothing is answered when
 * nothing changed. `pg_notify` runs in RETURNING, computed for every changed row whether or not the outer
 * query reads it. The UPDATE, its only write, has the key check's slot: a call by a held key costs this one
 * round trip (store/key-checked.ts).
 */
const SET_ENDPOINT_STATUS = `WITH changed AS (
       UPDATE webhook_endpoints
          SET status = $3,
              consecutive_failures = CASE WHEN $3 = 'active' THEN 0 ELSE consecutive_failures END,
              updated_at = $4
        WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL AND ${KEY_CHECK_SLOT}
        RETURNING ${VIEW_COLUMNS}, record_json,
                  CASE WHEN $3 = 'paused' THEN pg_notify($5, id)::text END AS announced
     )
     SELECT ${jsonArraySql(
       `SELECT ${VIEW_COLUMNS}, record_json FROM changed
         UNION ALL
        SELECT ${VIEW_COLUMNS}, record_json FROM webhook_endpoints
         WHERE workspace_id = $1 AND deleted_at IS NULL AND id <> c.id`,
       'r.created_at, r.id',
       endpointRecordSql(4),
     )} AS records
       FROM changed c`;

/**
 * Resuming (`active`) clears the failure run; pausing keeps it for the record and announces it to the
 * delivery workers. `undefined` when no live endpoint has this id.
 */
export async function setEndpointStatus(
  db: Queryable,
  workspaceId: string,
  id: string,
  status: 'active' | 'paused',
  now: number,
): Promise<JsonText<WebhookEndpoint[]> | undefined> {
  const [row] = await db.query<{ records: string }>(SET_ENDPOINT_STATUS, [
    workspaceId,
    id,
    status,
    now,
    ENDPOINT_STOPPED_CHANNEL,
  ]);
  return row ? new JsonText(row.records) : undefined;
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

/** Live endpoints of a workspace that are not relay listeners, with the workspace's row locked against a racing create. */
export async function countEndpointsLocked(db: Queryable, workspaceId: string): Promise<number> {
  await db.query('SELECT id FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
  const rows = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM webhook_endpoints
      WHERE workspace_id = $1 AND listener_seen_at IS NULL AND deleted_at IS NULL`,
    [workspaceId],
  );
  return rows[0]!.count;
}
