import type { WebhookEvent } from '../events/types';

const BRAND = Symbol.for('@svc-kit/webhooks/WebhookHandlerError');

function describe(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  return String(cause);
}

/** A handler registered with `on` or `onAny` threw (or rejected). The delivery itself was genuine. */
export class WebhookHandlerError extends Error {
  override readonly name = 'WebhookHandlerError';
  /** What the handler threw; an `AggregateError` when several handlers failed. */
  override readonly cause: unknown;
  /** The verified event the handlers were processing. */
  readonly event: WebhookEvent;

  constructor(event: WebhookEvent, cause: unknown) {
    let detail: string;
    try {
      detail = describe(cause);
    } catch {
      detail = 'an unprintable value';
    }
    super(`A handler for ${event.type} (${event.id}) failed: ${detail}`, { cause });
    this.cause = cause;
    this.event = event;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    try {
      return (value as Record<symbol, unknown>)[BRAND] === true;
    } catch {
      return false;
    }
  }
}
