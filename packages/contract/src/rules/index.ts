// Rules the reference service and the mock both apply: one implementation, imported by both.
export * from './contacts.js';
export * from './credentials.js';
export * from './cross-site.js';
export * from './delivery.js';
export * from './delivery-log.js';
export * from './display-text.js';
export * from './idempotency.js';
export * from './ids.js';
export * from './integrations.js';
export * from './issues.js';
export * from './webhook-url.js';
export * from './webhooks.js';
