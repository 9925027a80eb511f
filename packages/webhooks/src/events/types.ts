import type { EventType } from './catalogue';
import type { EventDataMap } from './schemas';

interface EnvelopeFields {
  /** Event id, `evt_…`; stable: the same id never names two different events. */
  readonly id: string;
  /** When the event happened, in milliseconds since the Unix epoch. */
  readonly created_at: number;
  /** Slug of the identity the event concerns. */
  readonly identity: string;
  /** Fields the service adds later land here, untyped, instead of being dropped. */
  readonly [field: string]: unknown;
}

/** An event whose type is in the catalogue, with its `data` checked against that type's schema. */
export type KnownEvent = {
  [K in EventType]: EnvelopeFields & { readonly type: K; readonly data: EventDataMap[K] };
}[EventType];

/**
 * An event of a type newer than this SDK: passed through (never rejected), with `data` untyped.
 *
 * TypeScript cannot express "any string except the catalogue's", so a plain `event.type === '…'` check
 * leaves this member in the union; narrow with `isKnownEvent` or `isEventOfType` first (or register
 * handlers with `Webhooks.on`, which are typed per event).
 */
export interface UnknownEvent extends EnvelopeFields {
  readonly type: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/** Any verified delivery. */
export type WebhookEvent = KnownEvent | UnknownEvent;

/** The event of one catalogue type, e.g. `EventOfType<'message.received'>`. */
export type EventOfType<T extends EventType> = Extract<KnownEvent, { readonly type: T }>;
