import { type EventType, isEventType } from './catalogue';
import type { EventOfType, KnownEvent, WebhookEvent } from './types';

/** True for an event whose type is in this SDK's catalogue; then `switch (event.type)` narrows fully. */
export function isKnownEvent(event: WebhookEvent): event is KnownEvent {
  return isEventType(event.type);
}

/** True when the event has the given type (or one of the given types), narrowing it to that type. */
export function isEventOfType<T extends EventType>(
  event: WebhookEvent,
  type: T | readonly T[],
): event is EventOfType<T> {
  return typeof type === 'string' ? event.type === type : (type as readonly string[]).includes(event.type);
}
