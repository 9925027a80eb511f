import type { RawBody } from '../body/raw-body';
import { DuplicateGuard } from '../dedupe/guard';
import { WebhookVerificationError } from '../errors';
import { type EventType, isEventType, RESERVED_EVENT_TYPES } from '../events/catalogue';
import { closestEventType } from '../events/suggest';
import type { EventOfType, WebhookEvent } from '../events/types';
import { HEADER_NAMES } from '../headers/names';
import { type HeaderInput, readHeaderText } from '../headers/read-header';
import { resolveVerifyOptions, type VerifyOptions } from '../options/verify-options';
import { toVerificationError } from '../verify/result';
import type { DeliveryContext, ErrorContext } from './context';
import { WebhookHandlerError } from './handler-error';
import { acceptedResponse, errorResponse, verificationErrorResponse, type WebhookResponse } from './response';

export interface WebhooksOptions extends VerifyOptions {
  /**
   * Runs each event id at most once; duplicates are answered 200 without running handlers. Default: a
   * `DuplicateGuard` over an in-memory store (24 h, 10 000 ids, per process), so a replay inside the
   * timestamp tolerance does not run the handlers twice. Pass a guard over a shared store when the
   * receiver runs on several instances, or `false` to run the handlers for every verified delivery.
   */
  dedupe?: DuplicateGuard | false | undefined;
  /**
   * `false` (default): a throwing handler makes `handle()` answer 500, so the failure shows in the
   * service's delivery log. `true`: answer 200 anyway (the failure still reaches `onError`). The service
   * does not retry either way; note that 20 failed deliveries in a row pause the endpoint.
   */
  acknowledgeHandlerErrors?: boolean | undefined;
}

export type EventHandler<E> = (event: E, context: DeliveryContext) => void | Promise<void>;
export type ErrorHandler = (
  error: WebhookVerificationError | WebhookHandlerError,
  context: ErrorContext,
) => void | Promise<void>;

/** A request as every adapter sees it: the raw body, the headers, and optionally the method. */
export interface WebhookRequest {
  body: unknown;
  headers: HeaderInput;
  /** When given, anything but POST is answered 405. */
  method?: string | undefined;
}

type Verifier = (body: RawBody, headers: HeaderInput, options: VerifyOptions) => Promise<WebhookEvent>;

function checkEventType(method: string, type: unknown): EventType {
  if (typeof type === 'string' && isEventType(type)) return type;
  if ((RESERVED_EVENT_TYPES as readonly unknown[]).includes(type)) {
    throw new WebhookVerificationError(
      'invalid_options',
      `Webhooks.${method}: "${String(type)}" is reserved but not sent yet; a handler for it would never run.`,
    );
  }
  const suggestion = typeof type === 'string' ? closestEventType(type) : undefined;
  throw new WebhookVerificationError(
    'invalid_options',
    `Webhooks.${method}: "${String(type)}" is not an event type` +
      (suggestion === undefined ? '.' : `; did you mean "${suggestion}"?`) +
      ' Use onAny for every event, or one of EVENT_TYPES.',
  );
}

/** Takes out the most recently added registration of `handler`, if any. */
function removeLast<T>(list: T[] | undefined, handler: T): void {
  const index = list?.lastIndexOf(handler) ?? -1;
  if (index >= 0) list?.splice(index, 1);
}

function checkDedupe(dedupe: unknown): DuplicateGuard | undefined {
  if (dedupe === false) return undefined;
  if (dedupe === undefined) return new DuplicateGuard();
  if (dedupe instanceof DuplicateGuard) return dedupe;
  throw new WebhookVerificationError(
    'invalid_options',
    'options.dedupe must be a DuplicateGuard (new DuplicateGuard(store)) or false; leave it out for the in-memory default.',
  );
}

async function settle<T>(run: () => T | Promise<T>): Promise<PromiseSettledResult<T>> {
  try {
    return { status: 'fulfilled', value: await run() };
  } catch (reason) {
    return { status: 'rejected', reason };
  }
}

/**
 * Verifies deliveries and routes them to handlers. `handle()` is the whole receiver: adapters pass it the
 * raw body and headers and send back what it answers.
 */
export class WebhooksCore {
  readonly #options: VerifyOptions;
  readonly #verifier: Verifier;
  readonly #dedupe: DuplicateGuard | undefined;
  readonly #acknowledgeHandlerErrors: boolean;
  readonly #handlers = new Map<string, EventHandler<WebhookEvent>[]>();
  readonly #anyHandlers: EventHandler<WebhookEvent>[] = [];
  readonly #errorHandlers: ErrorHandler[] = [];

  /** Throws `invalid_secret` / `invalid_options` at once, so a set-up mistake shows at start-up. */
  constructor(options: WebhooksOptions, verifier: Verifier) {
    const resolved = resolveVerifyOptions(options);
    this.#options = {
      secret: resolved.secrets,
      toleranceSeconds: resolved.toleranceSeconds,
      now: resolved.now,
    };
    this.#verifier = verifier;
    this.#dedupe = checkDedupe(options.dedupe);
    this.#acknowledgeHandlerErrors = options.acknowledgeHandlerErrors === true;
  }

  /** Runs `handler` for events of the given type(s). Unknown names are refused at once (typo guard). */
  on<T extends EventType>(type: T | readonly T[], handler: EventHandler<EventOfType<T>>): this {
    const types: readonly unknown[] = Array.isArray(type) ? type : [type];
    for (const name of types) {
      const checked = checkEventType('on', name);
      const list = this.#handlers.get(checked) ?? [];
      list.push(handler as EventHandler<WebhookEvent>);
      this.#handlers.set(checked, list);
    }
    return this;
  }

  /**
   * Stops running `handler` for the given type(s): takes out its latest `on()` registration for each.
   * A handler that is not registered is ignored; an unknown name is refused, as in `on()`.
   */
  off<T extends EventType>(type: T | readonly T[], handler: EventHandler<EventOfType<T>>): this {
    const types: readonly unknown[] = Array.isArray(type) ? type : [type];
    for (const name of types) {
      removeLast(this.#handlers.get(checkEventType('off', name)), handler as EventHandler<WebhookEvent>);
    }
    return this;
  }

  /** The same as `off()`, under the name Node's and octokit's emitters use. */
  removeListener<T extends EventType>(type: T | readonly T[], handler: EventHandler<EventOfType<T>>): this {
    return this.off(type, handler);
  }

  /** Stops running an `onAny()` handler. */
  offAny(handler: EventHandler<WebhookEvent>): this {
    removeLast(this.#anyHandlers, handler);
    return this;
  }

  /** Stops telling an `onError()` handler. */
  offError(handler: ErrorHandler): this {
    removeLast(this.#errorHandlers, handler);
    return this;
  }

  /** Runs `handler` for every verified event, including types newer than this SDK. */
  onAny(handler: EventHandler<WebhookEvent>): this {
    this.#anyHandlers.push(handler);
    return this;
  }

  /** Told about refused deliveries and failing handlers. Its own errors are ignored. */
  onError(handler: ErrorHandler): this {
    this.#errorHandlers.push(handler);
    return this;
  }

  /** Verifies a delivery with the configured secrets; throws `WebhookVerificationError`. */
  verify(body: unknown, headers: HeaderInput): Promise<WebhookEvent> {
    // `unknown` on purpose: a parsed body is reported as `body_was_parsed`, not as a type error.
    return this.#verifier(body as RawBody, headers, this.#options);
  }

  /**
   * Runs the handlers of `event.type` and the `onAny` handlers, concurrently, and waits for all of them.
   * Throws one `WebhookHandlerError` if any failed (its `cause` is an `AggregateError` if several did).
   */
  async receive(event: WebhookEvent, context?: DeliveryContext): Promise<void> {
    const delivery = context ?? { deliveryId: undefined, eventId: event.id, eventType: event.type };
    const handlers = [...(this.#handlers.get(event.type) ?? []), ...this.#anyHandlers];
    const results = await Promise.all(handlers.map((handler) => settle(() => handler(event, delivery))));
    const failures = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    if (failures.length === 1) throw new WebhookHandlerError(event, failures[0]);
    if (failures.length > 1) {
      throw new WebhookHandlerError(
        event,
        new AggregateError(failures, `${failures.length} handlers failed`),
      );
    }
  }

  /** Verify, de-duplicate, run the handlers, answer. Never throws. */
  async handle(request: WebhookRequest): Promise<WebhookResponse> {
    if (typeof request !== 'object' || request === null) {
      return errorResponse(500, 'invalid_options', 'Webhooks.handle was called without a request.');
    }
    return this.#handle(request.body, request.headers, request.method);
  }

  async #handle(body: unknown, headers: HeaderInput, method: unknown): Promise<WebhookResponse> {
    if (typeof method === 'string' && method.toUpperCase() !== 'POST') {
      return errorResponse(405, 'method_not_allowed', 'Webhook deliveries are POST requests.', {
        allow: 'POST',
      });
    }

    let event: WebhookEvent;
    try {
      event = await this.verify(body, headers);
    } catch (caught) {
      const error = toVerificationError(caught);
      await this.#reportError(error, {
        deliveryId: readHeaderText(headers, HEADER_NAMES.delivery),
        eventId: readHeaderText(headers, HEADER_NAMES.eventId),
        eventType: readHeaderText(headers, HEADER_NAMES.eventType),
      });
      return verificationErrorResponse(error);
    }

    const context: DeliveryContext = {
      deliveryId: readHeaderText(headers, HEADER_NAMES.delivery),
      eventId: event.id,
      eventType: event.type,
    };

    let finish: ((succeeded: boolean) => Promise<void>) | undefined;
    if (this.#dedupe !== undefined) {
      let begun: Awaited<ReturnType<DuplicateGuard['begin']>>;
      try {
        begun = await this.#dedupe.begin(event.id);
      } catch {
        return errorResponse(500, 'duplicate_store_failed', 'The receiver could not check for duplicates.');
      }
      if (begun === undefined) return acceptedResponse({ duplicate: true });
      if (begun === 'in_progress') {
        return errorResponse(
          409,
          'duplicate_in_progress',
          `Another delivery of ${event.id} is still being handled (by another instance); this one was not.`,
        );
      }
      finish = begun;
    }

    try {
      await this.receive(event, context);
    } catch (caught) {
      const error = caught instanceof WebhookHandlerError ? caught : new WebhookHandlerError(event, caught);
      await finish?.(false);
      await this.#reportError(error, context);
      // The handler's own message stays in the receiver: it may hold data the sender must not log.
      if (this.#acknowledgeHandlerErrors) return acceptedResponse({ handlerFailed: true });
      return errorResponse(
        500,
        'handler_failed',
        `The delivery was verified but a handler failed while processing ${event.id}; see the receiver's logs.`,
      );
    }
    await finish?.(true);
    return acceptedResponse();
  }

  async #reportError(
    error: WebhookVerificationError | WebhookHandlerError,
    context: ErrorContext,
  ): Promise<void> {
    await Promise.all(this.#errorHandlers.map((handler) => settle(() => handler(error, context))));
  }
}
