import type * as z from 'zod/mini';
import { WebhookVerificationError } from '../errors';
import { isEventType } from './catalogue';
import { eventEnvelopeSchema, eventSchemas } from './schemas';
import type { WebhookEvent } from './types';

const MAX_ISSUES_IN_MESSAGE = 3;

/** The value at an issue's path, to say what was found (zod/mini issues do not carry the input). */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return 'a fractional number';
  return typeof value;
}

// Worded here rather than by a zod locale: zod/mini ships none by default, and loading one would add
// every language to the bundle. Custom messages given in the schemas (the digest, the id) are kept.
function describeIssue(issue: z.core.$ZodIssue, root: unknown): string {
  const found = () => describeValue(valueAt(root, issue.path));
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected === 'int' ? 'an integer' : issue.expected}, got ${found()}`;
    case 'too_small':
      return issue.origin === 'string' && issue.minimum === 1
        ? 'expected a non-empty string'
        : `expected at least ${String(issue.minimum)}`;
    case 'too_big':
      return `expected at most ${String(issue.maximum)}`;
    default:
      return issue.message;
  }
}

function describeIssues(issues: readonly z.core.$ZodIssue[], root: unknown, prefix: string): string {
  const shown = issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    return `${path || '(body)'}: ${describeIssue(issue, root)}`;
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
  if (!envelope.success) throw invalid(describeIssues(envelope.error.issues, json, ''), envelope.error);

  const event = envelope.data;
  if (!isEventType(event.type)) return event as WebhookEvent;

  const data = eventSchemas[event.type].safeParse(event.data);
  if (!data.success)
    throw invalid(`${event.type}: ${describeIssues(data.error.issues, event.data, 'data')}`, data.error);
  return { ...event, data: data.data } as WebhookEvent;
}
