import { randomBytes } from 'node:crypto';
import { newWebhookEndpoint, type WebhookDelivery } from '@svc-kit/contract';
import { newId } from '../../src/domain/ids.js';
import type { Queryable } from '../../src/store/db.js';
import {
  insertEndpoint,
  newEndpointRow,
  type WebhookEndpointRow,
} from '../../src/store/queries/webhook-endpoints.js';
import { setWorkspaceFlag } from '../../src/store/queries/workspaces.js';
import type { SecretBox } from '../../src/store/secret-box.js';

/**
 * An `active` endpoint written straight to the store (no session needed), created a second ago (or at
 * `createdAt`, for a test's own clock) so that events from then on fan out to it; no filter unless
 * `events` names types. Answers its id and plaintext secret.
 */
export async function seedActiveEndpoint(
  db: Queryable,
  secretBox: SecretBox,
  workspaceId: string,
  url: string,
  events: readonly string[] = [],
  createdAt = Date.now() - 1_000,
): Promise<{ id: string; secret: string }> {
  const id = newId('whk');
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  await insertEndpoint(
    db,
    newEndpointRow(
      workspaceId,
      newWebhookEndpoint({ id, url, events: [...events] }, createdAt),
      secretBox.seal(secret, id),
    ),
  );
  return { id, secret };
}

/** An event as stored: `body` is the exact text signed and sent. */
export type StoredEvent = { id: string; type: string; identity: string; body: string };

/**
 * Turns the workspace's webhooks on and gives it an endpoint taking every event from `createdAt` on: an
 * event no endpoint takes is not stored (store/queries/fan-out.ts), so a test that checks which events an
 * operation made needs one. Answers a reader of the events it took, through its delivery rows (one per
 * event), oldest first.
 */
export async function takeEvents(
  db: Queryable,
  secretBox: SecretBox,
  workspaceId: string,
  createdAt?: number,
): Promise<() => Promise<StoredEvent[]>> {
  await setWorkspaceFlag(db, workspaceId, 'webhooks_enabled', true);
  const url = 'https://hooks.example.com/takes-every-event';
  const { id } = await seedActiveEndpoint(db, secretBox, workspaceId, url, [], createdAt);
  return () =>
    db.query<StoredEvent>(
      `SELECT ev.id, ev.type, ev.identity, ev.body FROM webhook_deliveries d JOIN events ev ON ev.id = d.event_id
        WHERE d.endpoint_id = $1 ORDER BY ev.created_at, ev.id`,
      [id],
    );
}

/** A `pending` delivery row of `eventId` for the endpoint, as insertDelivery takes it (it makes the id). */
export function pendingDelivery(workspaceId: string, endpointId: string, eventId: string) {
  return {
    workspace_id: workspaceId,
    endpoint_id: endpointId,
    event_id: eventId,
    event_type: 'integration.created',
    attempt: 1,
    status: 'pending',
    http_status: null,
    latency_ms: null,
    response_excerpt: null,
    next_attempt_at: null,
    created_at: Date.now(),
  };
}

/**
 * Writes one delivery row (tests and benchmarks write a log with it), its id made by the database from its
 * event and endpoint (migration 0017), as the event fan-out makes it: a second row for the same pair is
 * refused by the primary key.
 */
export async function insertDelivery(
  db: Queryable,
  row: Omit<WebhookDelivery, 'id' | 'status'> & { workspace_id: string; status: string },
): Promise<void> {
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

/**
 * A failed attempt with nothing from the receiver, as the log wrote one before migration 0028 kept why:
 * the answer's fields and its reason all null. Answers the event id (a new one, with no stored event).
 */
export async function insertUnansweredFailure(
  db: Queryable,
  endpoint: { workspaceId: string; endpointId: string },
  createdAt = Date.now(),
): Promise<string> {
  const eventId = newId('evt');
  await insertDelivery(db, {
    workspace_id: endpoint.workspaceId,
    endpoint_id: endpoint.endpointId,
    event_id: eventId,
    event_type: 'integration.created',
    attempt: 1,
    status: 'failed',
    http_status: null,
    latency_ms: null,
    response_excerpt: null,
    next_attempt_at: null,
    created_at: createdAt,
  });
  return eventId;
}

/** Any endpoint row of the workspace, removed ones included, sealed secrets and all. */
export async function endpointRow(
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
