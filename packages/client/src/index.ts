export { Client } from './client.js';
export { APIPromise, type WithResponse } from './core/api-promise.js';
export type { Logger, LogLevel } from './core/logger.js';
export type {
  ApiKeyClientOptions,
  ClientOptions,
  CommonClientOptions,
  Fetch,
  HeadersLike,
  RequestOptions,
  SessionClientOptions,
} from './core/options.js';
export type { RequestArgs, RequestInput } from './core/request-input.js';
export { isRepeatable } from './core/retry-policy.js';
export * from './errors/index.js';
export type { Contacts } from './resources/contacts.js';
export type { Integrations } from './resources/integrations.js';
export { DEFAULT_DELIVERIES_LIMIT, type Webhooks } from './resources/webhooks.js';
export { VERSION } from './version.js';
