import type { WebhookDelivery } from '@svc-kit/contract';
import type { WebhookDeliveryView } from '../../store/queries/webhook-deliveries.js';

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
