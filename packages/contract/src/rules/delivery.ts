import { EVENT_TYPES, type EventType, eventSchemas, isEventType } from '@svc-kit/webhooks';
import * as z from 'zod/mini';
import type { DeliveryStatus } from '../resources/webhooks.js';

/** Consecutive failed deliveries that pause an endpoint (spec 3.1, 6.1 and part 8). */
export const FAILURES_BEFORE_PAUSE = 20;

/** Bytes of an endpoint's answer the delivery log keeps (spec 2.3, part 8). */
export const RESPONSE_EXCERPT_BYTES = 500;

/**
 * The status of a delivery settled without a request because its endpoint was paused before its turn. Its
 * answer fields (`http_status`, `latency_ms`, `response_excerpt`) stay null: they are the endpoint's answer
 * (spec 2.3), and there was none. It does not count towards the failure run.
 */
export const NOT_SENT_PAUSED = 'not_sent_paused' satisfies DeliveryStatus;
/** The same for an endpoint removed between the event and the attempt. */
export const NOT_SENT_REMOVED = 'not_sent_removed' satisfies DeliveryStatus;

/** What the fan-out reads of an endpoint. */
export interface FanOutEndpoint {
  status: string;
  events: readonly string[];
  created_at: number;
}

/**
 * Whether an event gets a delivery to an endpoint, decided once, when the event is recorded (spec 6.1):
 * only while the workspace's `webhooks_enabled` flag is on, to a live `active` endpoint created no later
 * than the event, whose filter is empty or names the event's type. Removed endpoints are the caller's to
 * leave out. An event that gets no delivery then never gets one later.
 */
export function endpointReceives(
  endpoint: FanOutEndpoint,
  event: { type: string; created_at: number },
  webhooksEnabled: boolean,
): boolean {
  return (
    webhooksEnabled &&
    endpoint.status === 'active' &&
    endpoint.created_at <= event.created_at &&
    (endpoint.events.length === 0 || endpoint.events.includes(event.type))
  );
}

/** The fields of a delivery's body (spec 6.4). */
export interface EventEnvelopeFields {
  id: string;
  type: string;
  created_at: number;
  identity: string;
  data: Readonly<Record<string, unknown>>;
}

/**
 * The body of every delivery of an event, in one field order: these exact bytes are stored, signed and
 * sent, so what a receiver verifies never depends on encoding the event again.
 */
export function eventBody(event: EventEnvelopeFields): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    identity: event.identity,
    data: event.data,
  });
}

// Built once per type: a schema is compiled on its first use.
const strictSchemas = new Map<EventType, z.ZodMiniType>();
function strictSchema(type: EventType): z.ZodMiniType {
  let schema = strictSchemas.get(type);
  if (schema === undefined) {
    schema = z.strictObject(eventSchemas[type].shape);
    strictSchemas.set(type, schema);
  }
  return schema;
}

/**
 * Checks data for a test event (the sandbox's trigger): the type must be in the catalogue and the data
 * must carry exactly the catalogue's fields, since what the service emits never carries more (spec 6.4).
 * Answers the checked data, or the reason for a refusal.
 */
export function checkTriggeredEvent(
  type: string,
  data: unknown,
): ({ ok: true } & CatalogueEvent) | { ok: false; reason: string } {
  if (!isEventType(type)) {
    return { ok: false, reason: `unknown event type ${type}; one of: ${EVENT_TYPES.join(', ')}` };
  }
  const checked = strictSchema(type).safeParse(data);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    return { ok: false, reason: `data does not fit ${type}${where}: ${issue?.message ?? 'invalid'}` };
  }
  // The one narrowing: the schema is looked up by a type known only at run time, so zod cannot infer
  // which type's data it parsed; it is `type`'s strict schema, so the data is exactly that type's.
  return { ok: true, ...({ type, data: checked.data } as CatalogueEvent) };
}

/**
 * The sandbox trigger's answer when its `endpoint` (one endpoint's "Send test event") names no live
 * endpoint of the caller's workspace: an unknown id, a removed endpoint, another workspace's. It comes after
 * the type, data and identity checks and before anything is spent. A paused endpoint, or one whose filter
 * leaves the type out, is no refusal: the event is recorded and, by `endpointReceives`, gets no delivery.
 */
export const TRIGGER_ENDPOINT_NOT_FOUND = {
  code: 'not_found',
  message: 'no such webhook endpoint in this workspace',
} as const;

/** The data an event of type `K` carries: exactly the members the catalogue names for it. */
export type CatalogueEventData<K extends EventType> = {
  [F in keyof (typeof eventSchemas)[K]['shape']]: z.output<(typeof eventSchemas)[K]['shape'][F]>;
};

/**
 * An event's type with its data, one member of the union per type in `K` (by default the catalogue): a
 * type cannot be paired with another type's data, nor data with a missing, misspelt or extra member.
 */
export type CatalogueEvent<K extends EventType = EventType> = {
  [P in K]: { type: P; data: CatalogueEventData<P> };
}[K];

/** The values a sample draws: a contact digest (`sha256:<64 hex>`) and a thread id. */
export interface SampleDraw {
  contact: string;
  threadId: string;
}

const contactChange = (drawn: SampleDraw) => ({ contact: drawn.contact });
const integrationChange = () => ({ integration: 'sandbox-tools' });

/**
 * Made-up but well-formed data for a test event of each type (like `stripe trigger`'s fixtures): one entry
 * per type of the catalogue, so a type without one does not compile.
 */
export const SAMPLE_EVENT_DATA: {
  readonly [K in EventType]: (drawn: SampleDraw) => CatalogueEventData<K>;
} = {
  'message.received': (drawn) => ({ thread_id: drawn.threadId, contact: drawn.contact }),
  'contact.requested': contactChange,
  'contact.approved': contactChange,
  'contact.rejected': contactChange,
  'contact.blocked': contactChange,
  'contact.unblocked': contactChange,
  'contact.removed': contactChange,
  'contact.updated': contactChange,
  'integration.created': integrationChange,
  'integration.authorized': integrationChange,
  'integration.exposure_updated': () => ({ integration: 'sandbox-tools', version: 1 }),
  'integration.deleted': integrationChange,
};

/** The sample data of `type`, from the values the caller draws. */
export function sampleEventData(type: EventType, drawn: SampleDraw): Record<string, unknown> {
  return SAMPLE_EVENT_DATA[type](drawn);
}

/** The UTF-8 size of `text` without encoding it (an excerpt is cut on the delivery path). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * One decoder for every excerpt. `stream: true` holds back a character cut at the limit instead of turning
 * it into U+FFFD; the empty call after it discards what was held back, so nothing carries over.
 */
const excerptDecoder = new TextDecoder('utf-8', { fatal: false });

/** The log's excerpt of an answer: at most `max` bytes of text, never a split character, no NULs. */
export function excerptOf(bytes: Uint8Array, max: number = RESPONSE_EXCERPT_BYTES): string {
  let text = excerptDecoder.decode(bytes.subarray(0, max), { stream: true }).replaceAll('\u0000', '');
  excerptDecoder.decode();
  // A replacement character is three bytes for one invalid byte: trim until the text fits again.
  while (utf8Length(text) > max) text = text.slice(0, -1);
  return text;
}
