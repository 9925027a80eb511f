import type { Queryable } from '../db.js';
import { announceEndpointsStopped, type WebhookEndpointRow } from './webhook-endpoints.js';

/** What a listener endpoint's `url` reads; the prefix tells the worker to relay instead of dialling. */
export const LISTENER_URL = 'listen://svc-webhooks';

export function isListenerUrl(url: string): boolean {
  return url.startsWith('listen:');
}

export async function getListenerSecret(db: Queryable, workspaceId: string): Promise<string | undefined> {
  const rows = await db.query<{ secret_enc: string }>(
    'SELECT secret_enc FROM listener_secrets WHERE workspace_id = $1',
    [workspaceId],
  );
  return rows[0]?.secret_enc;
}

/** Stores the workspace's listener secret unless one exists; returns the one that is stored. */
export async function putListenerSecret(
  db: Queryable,
  workspaceId: string,
  secretEnc: string,
  now: number,
): Promise<string> {
  const rows = await db.query<{ secret_enc: string }>(
    `INSERT INTO listener_secrets (workspace_id, secret_enc, created_at) VALUES ($1, $2, $3)
     ON CONFLICT (workspace_id) DO UPDATE SET workspace_id = EXCLUDED.workspace_id
     RETURNING secret_enc`,
    [workspaceId, secretEnc, now],
  );
  return rows[0]!.secret_enc;
}

/** A live listener endpoint of the workspace. */
export async function getListener(
  db: Queryable,
  workspaceId: string,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  const rows = await db.query<WebhookEndpointRow>(
    `SELECT * FROM webhook_endpoints
      WHERE workspace_id = $1 AND id = $2 AND listener_seen_at IS NOT NULL AND deleted_at IS NULL`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function countListeners(db: Queryable, workspaceId: string): Promise<number> {
  const rows = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM webhook_endpoints
      WHERE workspace_id = $1 AND listener_seen_at IS NOT NULL AND deleted_at IS NULL`,
    [workspaceId],
  );
  return rows[0]!.count;
}

export async function touchListeners(db: Queryable, ids: readonly string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await db.query('UPDATE webhook_endpoints SET listener_seen_at = $2 WHERE id = ANY($1::text[])', [ids, now]);
}

/** Removes listeners no stream has held since `before` (their CLI was killed without closing them). */
export async function removeAbandonedListeners(db: Queryable, before: number, now: number): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `UPDATE webhook_endpoints
        SET deleted_at = $2, updated_at = $2, secret_enc = NULL, previous_secret_enc = NULL, rotating_until = NULL
      WHERE listener_seen_at < $1 AND deleted_at IS NULL
      RETURNING id`,
    [before, now],
  );
  await announceEndpointsStopped(
    db,
    rows.map((row) => row.id),
  );
  return rows.length;
}

/** The delivery waiting for this listener's answer: committed `sending` to it, with its event's body. */
export async function getRelayedDelivery(
  db: Queryable,
  endpointId: string,
  deliveryId: string,
): Promise<{ id: string; event_id: string; event_type: string; body: string } | undefined> {
  const rows = await db.query<{ id: string; event_id: string; event_type: string; body: string }>(
    `SELECT d.id, d.event_id, d.event_type, e.body
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.id = $1 AND d.endpoint_id = $2 AND d.status = 'sending'`,
    [deliveryId, endpointId],
  );
  return rows[0];
}
