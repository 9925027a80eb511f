import type { WebhookDelivery, WebhookEndpoint } from '@svc-kit/contract';
import type { WebhookDeliveryView } from '../../store/queries/webhook-deliveries.js';
import type { WebhookEndpointView } from '../../store/queries/webhook-endpoints.js';

/**
 * The record as the API shows it: the secrets and the soft-delete marker stay inside, and
 * `rotating_until` reads null once the overlap is over (the old secret no longer verifies then).
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

/** One logged attempt as the API shows it: the claim's bookkeeping stays inside. */
export function deliveryRecord(row: WebhookDeliveryView): WebhookDelivery {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: row.attempt,
    status: row.status,
    http_status: row.http_status,
    latency_ms: row.latency_ms,
    response_excerpt: row.response_excerpt,
    next_attempt_at: row.next_attempt_at,
    created_at: row.created_at,
  };
}
