// The event catalogue lives in the receiver SDK; re-exported so users of the contract need one import.
export { EVENT_TYPES, type EventType, RESERVED_EVENT_TYPES, type ReservedEventType } from '@svc-kit/webhooks';
export * from './errors.js';
export * from './examples/index.js';
export { answerJsonSchemas } from './openapi/answer-schemas.js';
export { buildOpenApiDocument } from './openapi/document.js';
export * from './operations/define.js';
export * from './operations/index.js';
export { expandPath, toColonPath } from './operations/path-template.js';
export { TRANSPORT_REFUSALS } from './operations/statuses.js';
export * from './permissions.js';
export * from './resources/index.js';
export * from './rules/index.js';
