import type { z } from 'zod';
import { WebhookVerificationError } from '../errors';
import { isEventType } from './catalogue';
import { eventEnvelopeSchema, eventSchemas } from './schemas';
import type { WebhookEvent } from './types';

const MAX_ISSUES_IN_MESSAGE = 3;

function describeIssues(issues: readonly z.core.$ZodIssue[], prefix: string): string {
  const shown = issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    return `${path || '(body)'}: ${issue.message}`;
  });
  const more =
    issues.length > MAX_ISSUES_IN_MESSAGE ? ` (and ${issues.length - MAX_ISSUES_IN_MESSAGE} more)` : '';
  return shown.join('; ') + more;
}

function invalid(detail: string, cause?: unknown): WebhookVerificationError {
  return new WebhookVerificationError(
    'invalid_payload',
    `The body is JSON but not a valid event: ${detail}. Update @svc-kit/webhooks if the service changed the event shape.`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Checks a JSON value against the event envelope and, for catalogue types, that type's `data` schema.
 * Types not in the catalogue pass through as `UnknownEvent`. Throws `invalid_payload`.
 */
export function parseEvent(json: unknown): WebhookEvent {
  let envelope: ReturnType<typeof eventEnvelopeSchema.safeParse>;
  try {
    envelope = eventEnvelopeSchema.safeParse(json);
  } catch (error) {
    // Only reachable with hand-made objects (throwing getters, proxies), never with JSON.parse output.
    throw invalid('the value could not be read', error);
  }
  if (!envelope.success) throw invalid(describeIssues(envelope.error.issues, ''), envelope.error);

  const event = envelope.data;
  if (!isEventType(event.type)) return event as WebhookEvent;

  const data = eventSchemas[event.type].safeParse(event.data);
  if (!data.success) throw invalid(`${event.type}: ${describeIssues(data.error.issues, 'data')}`, data.error);
  return { ...event, data: data.data } as WebhookEvent;
}
