import type { WebhookEndpoint } from '@svc-kit/contract';
import type { WebhookEndpointView } from '../../store/queries/webhook-endpoints.js';

/**
 * The record as the API shows it: the secrets and the soft-delete marker stay inside, and
 * `rotating_until` reads null once the overlap is over (the old secret no longer verifies then). The lists
 * (the workspace's, a status change's answer) are written by the database, in the same members and order,
 * from the text each row keeps (migration 0019); test/store/json-records.test.ts holds them to the same bytes.
 */
export function endpointRecord(row: WebhookEndpointView, now: number): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    status: row.status,
    consecutive_failures: row.consecutive_failures,
    rotating_until: row.rotating_until !== null && row.rotating_until > now ? row.rotating_until : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
