import type { Queryable } from '../db.js';
import type { WebhookEndpointRow } from './webhook-endpoints.js';

/** What a listener endpoint's `url` reads; the prefix tells the worker to relay instead of dialling. */
export const LISTENER_URL = 'listen://svc-webhooks';

export function isListenerUrl(url: string): boolean {
  return url.startsWith('listen:');
}

/**
 * The workspace's listener secret, sealed (bound to the workspace id): the current one, and the one a
 * rotation replaced with the time until which it still signs.
 */
export interface ListenerSecretRow {
  secret_enc: string;
  previous_secret_enc: string | null;
  rotating_until: number | null;
}

const SECRET_COLUMNS = 'secret_enc, previous_secret_enc, rotating_until';

export async function getListenerSecret(
  db: Queryable,
  workspaceId: string,
): Promise<ListenerSecretRow | undefined> {
  const rows = await db.query<ListenerSecretRow>(
    `SELECT ${SECRET_COLUMNS} FROM listener_secrets WHERE workspace_id = $1`,
    [workspaceId],
  );
  return rows[0];
}

/** Stores the workspace's listener secret unless one exists; returns the one that is stored. */
export async function putListenerSecret(
  db: Queryable,
  workspaceId: string,
  secretEnc: string,
  now: number,
): Promise<ListenerSecretRow> {
  const rows = await db.query<ListenerSecretRow>(
    `INSERT INTO listener_secrets (workspace_id, secret_enc, created_at) VALUES ($1, $2, $3)
     ON CONFLICT (workspace_id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id
     RETURNING ${SECRET_COLUMNS}`,
    [workspaceId, secretEnc, now],
  );
  return rows[0]!;
}

/** Replaces the workspace's listener secret (a rotation: features/webhooks/secrets.ts decides). */
export async function setListenerSecret(
  db: Queryable,
  workspaceId: string,
  row: ListenerSecretRow,
): Promise<void> {
  await db.query(
    `UPDATE listener_secrets SET secret_enc = $2, previous_secret_enc = $3, rotating_until = $4
      WHERE workspace_id = $1`,
    [workspaceId, row.secret_enc, row.previous_secret_enc, row.rotating_until],
  );
}

/** The ids of the workspace's live listeners (the partial index of migration 0025 serves it). */
export async function liveListenerIds(db: Queryable, workspaceId: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM webhook_endpoints
      WHERE url = '${LISTENER_URL}' AND deleted_at IS NULL AND workspace_id = $1`,
    [workspaceId],
  );
  return rows.map((row) => row.id);
}

/** Gives a listener's endpoint row the workspace's secrets, each sealed for that endpoint. */
export async function setListenerRowSecrets(
  db: Queryable,
  id: string,
  row: ListenerSecretRow,
  now: number,
): Promise<void> {
  await db.query(
    `UPDATE webhook_endpoints SET secret_enc = $2, previous_secret_enc = $3, rotating_until = $4, updated_at = $5
      WHERE id = $1 AND deleted_at IS NULL`,
    [id, row.secret_enc, row.previous_secret_enc, row.rotating_until, now],
  );
}

export type ListenerRow = WebhookEndpointRow & { listener_stream: string | null };

/** A live listener endpoint of the workspace. */
export async function getListener(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<ListenerRow | undefined> {
  const rows = await db.query<ListenerRow>(
    `SELECT * FROM webhook_endpoints
      WHERE workspace_id = $1 AND id = $2 AND listener_seen_at IS NOT NULL AND deleted_at IS NULL`,
    [workspaceId, id],
  );
  return rows[0];
}

/**
 * Live listeners of the workspace, its row locked until the transaction ends, so that two concurrent opens
 * cannot both pass the cap.
 */
export async function countListenersLocked(db: Queryable, workspaceId: string): Promise<number> {
  await db.query('SELECT id FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
  const rows = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM webhook_endpoints
      WHERE workspace_id = $1 AND listener_seen_at IS NOT NULL AND deleted_at IS NULL`,
    [workspaceId],
  );
  return rows[0]!.count;
}

/** Makes `streamId` the listener's one stream (a resumed listener's earlier stream loses it). */
export async function setListenerStream(db: Queryable, endpointId: string, streamId: string): Promise<void> {
  await db.query('UPDATE webhook_endpoints SET listener_stream = $2 WHERE id = $1', [endpointId, streamId]);
}

/** The stream that holds the listener now, if any. */
export async function getListenerStream(db: Queryable, endpointId: string): Promise<string | null> {
  const rows = await db.query<{ listener_stream: string | null }>(
    'SELECT listener_stream FROM webhook_endpoints WHERE id = $1 AND deleted_at IS NULL',
    [endpointId],
  );
  return rows[0]?.listener_stream ?? null;
}

export async function touchListeners(db: Queryable, ids: readonly string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await db.query('UPDATE webhook_endpoints SET listener_seen_at = $2 WHERE id = ANY($1::text[])', [ids, now]);
}

/**
 * Removes listeners no stream has held since `before` (their CLI was killed without closing them). The URL is
 * written in the text, so that the live listeners' partial index (migration 0025) serves every plan.
 */
export async function removeAbandonedListeners(db: Queryable, before: number, now: number): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `UPDATE webhook_endpoints
        SET deleted_at = $2, updated_at = $2, secret_enc = NULL, previous_secret_enc = NULL, rotating_until = NULL
      WHERE url = '${LISTENER_URL}' AND deleted_at IS NULL AND listener_seen_at < $1
      RETURNING id`,
    [before, now],
  );
  return rows.length;
}

/**
 * The delivery, with its event's body, committed `sending` to the listener and waiting for the answer of its
 * stream `streamId`, which still holds the listener.
 */
export async function getRelayedDelivery(
  db: Queryable,
  endpointId: string,
  streamId: string,
  deliveryId: string,
): Promise<{ id: string; event_id: string; event_type: string; body: string } | undefined> {
  const rows = await db.query<{ id: string; event_id: string; event_type: string; body: string }>(
    `SELECT d.id, d.event_id, d.event_type, e.body
       FROM webhook_deliveries d
       JOIN events e ON e.id = d.event_id
       JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.id = $1 AND d.endpoint_id = $2 AND d.status = 'sending'
        AND w.listener_stream = $3 AND w.deleted_at IS NULL`,
    [deliveryId, endpointId, streamId],
  );
  return rows[0];
}
