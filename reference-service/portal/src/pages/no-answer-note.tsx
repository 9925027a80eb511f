import type { WebhookDelivery } from '@svc-kit/contract';
import type { SentRequest } from '../api/webhook-extras.js';
import { NO_ANSWER, noAnswerSentence } from '../ui/delivery-status.js';

/** A failed attempt with nothing at all from the receiver (a listener's log has the relay's words). */
export function unanswered(delivery: WebhookDelivery): boolean {
  return delivery.status === 'failed' && delivery.http_status === null && delivery.response_excerpt === null;
}

/**
 * Why an attempt got no answer, once the service's route has said: its code in words, or, for a row logged
 * before the code was kept (or when the route could not be read), the possible causes.
 */
export function NoAnswerNote({
  delivery,
  sent,
  settled,
}: {
  delivery: WebhookDelivery;
  sent: SentRequest | undefined;
  settled: boolean;
}) {
  const why = noAnswerSentence(sent?.no_answer_reason);
  if (why !== undefined) {
    return (
      <p data-testid="no-answer" data-reason={sent?.no_answer_reason}>
        {why}
      </p>
    );
  }
  return unanswered(delivery) && settled ? <p data-testid="no-answer">{NO_ANSWER}</p> : null;
}
