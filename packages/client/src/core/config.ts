import { ClientValidationError } from '../errors/validation-errors.js';
import { readEnvironment } from './environment.js';
import { type ClientLog, createLog, isLogger, isLogLevel, type Logger, resolveLogLevel } from './logger.js';
import { type ClientOptions, DEFAULTS, type Fetch, type HeadersLike, MAX_TIMER_MS } from './options.js';
import { redactor } from './redact.js';

/** The checked, defaulted form of `ClientOptions` that every request reads. */
export interface ClientConfig {
  baseUrl: string;
  auth: { kind: 'apiKey'; apiKey: string } | { kind: 'session' };
  fetch: Fetch | undefined;
  timeoutMs: number;
  maxRetries: number;
  maxRetryDelayMs: number;
  initialRetryDelayMs: number;
  validateResponses: boolean;
  headers: HeadersLike | undefined;
  redact: (text: string) => string;
  log: ClientLog;
}

/** Where the API key is read from when the options do not give one. */
export const API_KEY_ENV = 'SVC_API_KEY';

export function resolveConfig(options: ClientOptions): ClientConfig {
  if (typeof options !== 'object' || options === null) refuse([], 'expected an options object');
  const auth = resolveAuth(options);
  const redact = redactor(auth.kind === 'apiKey' ? auth.apiKey : undefined);
  return {
    baseUrl: resolveBaseUrl(options.baseUrl),
    auth,
    fetch: resolveFetch(options.fetch),
    timeoutMs: checkTimeout(options.timeoutMs, ['timeoutMs']) ?? DEFAULTS.timeoutMs,
    maxRetries: checkCount(options.maxRetries, ['maxRetries']) ?? DEFAULTS.maxRetries,
    maxRetryDelayMs: checkDelay(options.maxRetryDelayMs, ['maxRetryDelayMs']) ?? DEFAULTS.maxRetryDelayMs,
    initialRetryDelayMs:
      checkDelay(options.initialRetryDelayMs, ['initialRetryDelayMs']) ?? DEFAULTS.initialRetryDelayMs,
    validateResponses: options.validateResponses === true,
    headers: options.headers,
    redact,
    log: resolveLog(options, redact),
  };
}

function resolveLog(options: ClientOptions, redact: (text: string) => string): ClientLog {
  const { logLevel, logger } = options;
  if (logLevel !== undefined && !isLogLevel(logLevel)) {
    refuse(['logLevel'], "expected 'off', 'error', 'warn', 'info' or 'debug'");
  }
  if (logger !== undefined && !isLogger(logger)) {
    refuse(['logger'], 'expected an object with error, warn, info and debug methods (console fits)');
  }
  const sink = logger ?? (globalThis as { console: Logger }).console;
  return createLog(resolveLogLevel(logLevel), sink, redact);
}

function resolveAuth(options: ClientOptions): ClientConfig['auth'] {
  const { apiKey: given, session } = options as { apiKey?: unknown; session?: unknown };
  if (session === true) {
    if (given !== undefined) refuse(['apiKey'], 'pass either apiKey or session: true, not both');
    return { kind: 'session' };
  }
  const apiKey = given ?? readEnvironment(API_KEY_ENV);
  if (apiKey === undefined) {
    refuse(
      ['apiKey'],
      `missing: pass apiKey, set the ${API_KEY_ENV} environment variable, or pass session: true`,
    );
  }
  // The key itself never appears in a message.
  if (typeof apiKey !== 'string' || apiKey === '') refuse(['apiKey'], 'expected a non-empty string');
  if (!/^[\x21-\x7e]+$/.test(apiKey)) {
    refuse(['apiKey'], 'contains spaces or characters a header cannot carry (check for a trailing newline)');
  }
  return { kind: 'apiKey', apiKey };
}

function resolveBaseUrl(value: unknown): string {
  if (typeof value !== 'string' && !(value instanceof URL)) {
    refuse(['baseUrl'], 'expected an absolute http(s) URL, e.g. https://api.example.com');
  }
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    refuse(['baseUrl'], 'not an absolute URL, e.g. https://api.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse(['baseUrl'], 'must use http or https');
  if (url.search !== '' || url.hash !== '') refuse(['baseUrl'], 'must not carry a query or a fragment');
  if (url.username !== '' || url.password !== '') refuse(['baseUrl'], 'must not carry credentials');
  return url.href.replace(/\/+$/, '');
}

function resolveFetch(value: unknown): Fetch | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') refuse(['fetch'], 'expected a function');
  return value as Fetch;
}

/** Checks a per-request or client timeout: a positive number of milliseconds a timer can hold. */
export function checkTimeout(value: unknown, path: PropertyKey[], operationId?: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    refuse(path, `expected a number of milliseconds from 1 to ${MAX_TIMER_MS}`, operationId);
  }
  return value;
}

/** Checks a retry count: a non-negative integer. */
export function checkCount(value: unknown, path: PropertyKey[], operationId?: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    refuse(path, 'expected a non-negative integer', operationId);
  }
  return value;
}

function checkDelay(value: unknown, path: PropertyKey[]): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_TIMER_MS) {
    refuse(path, `expected a number of milliseconds from 0 to ${MAX_TIMER_MS}`);
  }
  return value;
}

export function refuse(path: PropertyKey[], message: string, operationId?: string): never {
  throw new ClientValidationError({
    operationId,
    target: 'options',
    issues: [{ code: 'invalid_option', path, message }],
  });
}
