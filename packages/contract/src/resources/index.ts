export * from './common.js';
export * from './contacts.js';
export * from './error-body.js';
export * from './integrations.js';
export * from './webhooks.js';
