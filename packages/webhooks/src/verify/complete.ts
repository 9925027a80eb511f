import { parseJsonBody } from '../body/parse-json';
import type { BodyInput } from '../body/raw-body';
import { WebhookVerificationError } from '../errors';
import { parseEvent } from '../events/parse-event';
import type { WebhookEvent } from '../events/types';
import { HEADER_NAMES } from '../headers/names';
import { readHeaderText } from '../headers/read-header';

const SHOWN_HEADER_CHARS = 80;

function shown(value: string): string {
  const cut = value.length > SHOWN_HEADER_CHARS ? `${value.slice(0, SHOWN_HEADER_CHARS)}…` : value;
  return JSON.stringify(cut);
}

function mismatch(header: string, headerValue: string, bodyField: string, bodyValue: string) {
  return new WebhookVerificationError(
    'header_mismatch',
    `The ${header} header (${shown(headerValue)}) disagrees with the signed body's ${bodyField} ` +
      `(${shown(bodyValue)}). That header is not signed, so it was changed on the way; the delivery is refused.`,
  );
}

/**
 * The unsigned id and type headers must agree with the signed body when present; the values used are
 * always the body's.
 */
export function checkHeadersAgree(event: WebhookEvent, headers: unknown): void {
  const id = readHeaderText(headers, HEADER_NAMES.eventId);
  if (id !== undefined && id !== event.id) throw mismatch('X-Service-Event-Id', id, 'id', event.id);
  const type = readHeaderText(headers, HEADER_NAMES.eventType);
  if (type !== undefined && type !== event.type)
    throw mismatch('X-Service-Event-Type', type, 'type', event.type);
}

/** What follows a valid signature and timestamp: JSON, the event schema, then the unsigned headers. */
export function completeVerification(body: BodyInput, headers: unknown): WebhookEvent {
  const event = parseEvent(parseJsonBody(body));
  checkHeadersAgree(event, headers);
  return event;
}
