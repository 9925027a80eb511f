import { randomBytes } from 'node:crypto';
import { newWebhookEndpoint } from '@svc-kit/contract';
import { newId } from '../../src/domain/ids.js';
import type { Queryable } from '../../src/store/db.js';
import { insertEndpoint, newEndpointRow } from '../../src/store/queries/webhook-endpoints.js';
import type { SecretBox } from '../../src/store/secret-box.js';

/**
 * An `active` endpoint written straight to the store (no session needed), created a second ago so that
 * events from now on fan out to it; no filter unless `events` names types. Answers its id and plaintext
 * secret.
 */
export async function seedActiveEndpoint(
  db: Queryable,
  secretBox: SecretBox,
  workspaceId: string,
  url: string,
  events: readonly string[] = [],
): Promise<{ id: string; secret: string }> {
  const id = newId('whk');
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const createdAt = Date.now() - 1_000;
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
