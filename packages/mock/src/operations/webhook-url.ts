import { checkWebhookUrlShape } from '@svc-kit/contract';

/**
 * The receiver URL rules of createWebhook, as far as they can be checked without DNS: the contract's, the
 * same the service applies before it resolves the name (the mock cannot know what a name resolves to),
 * with the service's local-development opt-in when the test asked for loopback receivers.
 * Returns the reason for a refusal, or `undefined`.
 */
export function webhookUrlProblem(raw: string, allowLocalhost = false): string | undefined {
  const verdict = checkWebhookUrlShape(raw, { allowLocalhost });
  return verdict.ok ? undefined : verdict.reason;
}
