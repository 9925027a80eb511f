import type { WebhookDelivery } from '@svc-kit/contract';
import type { NoAnswerReason } from '../../../src/domain/no-answer-reasons.js';
import { send } from './account.js';

// The service routes of the webhook pages beside the contract (reference-service/src/features/webhooks/
// portal-routes.ts): what an attempt sent (and why it got no answer), an endpoint's activity for its chart,
// and one event with every endpoint's attempt of it.

export interface SentRequest {
  delivery: WebhookDelivery;
  url: string;
  /** Why a failed attempt got no answer; null when answered, never dialled, or logged before the code was kept. */
  no_answer_reason: NoAnswerReason | null;
  /** The headers as the worker builds them, the signature's values elided; the body as stored (null once removed). */
  request: { method: string; headers: Record<string, string>; body: string | null };
}

export type ActivityWindow = '1h' | '24h';

export interface ActivityBucket {
  start: number;
  /** Attempts per delivery status (absent: none). */
  attempts: Record<string, number>;
  latency_p50_ms: number | null;
  latency_max_ms: number | null;
}

export interface Activity {
  window: ActivityWindow;
  since: number;
  bucket_ms: number;
  buckets: ActivityBucket[];
  truncated: boolean;
}

/** One event as stored (`body`: the exact text signed and sent) and each endpoint's record of it. */
export interface EventAttempts {
  event: { id: string; type: string; created_at: number; body: string };
  attempts: { delivery: WebhookDelivery; endpoint: { id: string; url: string; removed: boolean } }[];
}

const endpointPath = (id: string) => `/v1/workspace/webhooks/${encodeURIComponent(id)}`;

export const webhookExtras = {
  sentRequest: (endpointId: string, deliveryId: string) =>
    send<SentRequest>(
      'GET',
      `${endpointPath(endpointId)}/deliveries/${encodeURIComponent(deliveryId)}/request`,
    ),
  activity: (endpointId: string, window: ActivityWindow) =>
    send<Activity>('GET', `${endpointPath(endpointId)}/activity?window=${window}`),
  event: (eventId: string) =>
    send<EventAttempts>('GET', `/v1/workspace/events/${encodeURIComponent(eventId)}`),
};
