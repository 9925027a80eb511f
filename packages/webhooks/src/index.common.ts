// What both builds export identically. Each entry adds its own crypto-bound functions and `Webhooks`.
export type { RawBody } from './body/raw-body';
export type { DuplicateGuardOptions } from './dedupe/guard';
export { DuplicateGuard } from './dedupe/guard';
export type { MemoryDuplicateStoreOptions } from './dedupe/memory-store';
export { MemoryDuplicateStore } from './dedupe/memory-store';
export type { DuplicateStore } from './dedupe/store';
export { isWebhookVerificationError, type WebhookErrorReason, WebhookVerificationError } from './errors';
export {
  EVENT_TYPES,
  type EventType,
  isEventType,
  RESERVED_EVENT_TYPES,
  type ReservedEventType,
} from './events/catalogue';
export { isEventOfType, isKnownEvent } from './events/guards';
export { parseEvent } from './events/parse-event';
export { type EventDataMap, type EventEnvelope, eventEnvelopeSchema, eventSchemas } from './events/schemas';
export type { EventOfType, KnownEvent, UnknownEvent, WebhookEvent } from './events/types';
export type { DeliveryContext, ErrorContext } from './handler/context';
export { WebhookHandlerError } from './handler/handler-error';
export {
  MAX_RESPONSE_BYTES,
  STATUS_BY_REASON,
  type WebhookResponse,
  type WebhookResponseReason,
} from './handler/response';
export type { ErrorHandler, EventHandler, WebhookRequest, WebhooksOptions } from './handler/webhooks';
export { HEADER_NAMES, type HeaderName } from './headers/names';
export type { HeaderInput } from './headers/read-header';
export type { SignOptions } from './options/sign-options';
export { DEFAULT_TOLERANCE_SECONDS, type VerifyOptions } from './options/verify-options';
export {
  type ParsedSignatureHeader,
  parseSignatureHeader,
  SIGNATURE_HEADER_LIMITS,
} from './signature/parse-header';
export type { TestHeaderOptions } from './testing/test-headers';
export type { VerifyResult } from './verify/result';
