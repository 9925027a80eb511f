import type { Logger, LogLevel } from './logger.js';

/**
 * A `fetch` function. `globalThis.fetch`, undici's, and most wrappers fit. The client always calls it
 * with a URL string and an init object.
 */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** Extra headers: a plain object, a `Headers`, or name/value pairs. */
export type HeadersLike =
  | Headers
  | Readonly<Record<string, string>>
  | ReadonlyArray<readonly [string, string]>;

/** Settings shared by both ways of authenticating. */
export interface CommonClientOptions {
  /** The service's address, e.g. `https://api.example.com` (a path prefix is kept). */
  baseUrl: string | URL;
  /** The `fetch` to use. Without it, `globalThis.fetch` is looked up on every request (so msw and test
   * doubles installed after construction are seen). */
  fetch?: Fetch | undefined;
  /** Milliseconds one attempt may take, answer body included. Default 60 000. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt, for failures that are safe to repeat. Default 2. */
  maxRetries?: number | undefined;
  /** The longest wait before a retry. A 429 asking for longer fails at once. Default 60 000. */
  maxRetryDelayMs?: number | undefined;
  /** The first backoff step (full jitter, doubling per retry, at most 8 s). Default 500. */
  initialRetryDelayMs?: number | undefined;
  /** Check every success answer against the contract's schema. Default `false`. */
  validateResponses?: boolean | undefined;
  /** Headers sent with every request. */
  headers?: HeadersLike | undefined;
  /**
   * What the client logs: `debug` (every request and answer), `info` (retries), `warn`, `error`, `off`.
   * Default: the `SVC_LOG` environment variable when it names a level, else `warn`.
   */
  logLevel?: LogLevel | undefined;
  /** Where log lines go. Default: `console`. The API key never appears in a line. */
  logger?: Logger | undefined;
}

/** A program: a workspace API key, sent as `Authorization: Bearer <key>`. */
export interface ApiKeyClientOptions extends CommonClientOptions {
  /**
   * A workspace API key (`svc_<id>_<secret>`). Default: the `SVC_API_KEY` environment variable (where the
   * runtime has one). Neither given is refused at construction with a clear error.
   */
  apiKey?: string | undefined;
  session?: false | undefined;
}

/** The browser portal: the session cookie, sent by the browser to its own origin only (`credentials: 'same-origin'`). */
export interface SessionClientOptions extends CommonClientOptions {
  session: true;
  apiKey?: never;
}

export type ClientOptions = ApiKeyClientOptions | SessionClientOptions;

/** Per-call settings; the last argument of every method. */
export interface RequestOptions {
  /** Aborts the call, including a wait between retries. Rejects with `APIUserAbortError`. */
  signal?: AbortSignal | undefined;
  /** Overrides the client's `timeoutMs` for each attempt of this call. */
  timeoutMs?: number | undefined;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number | undefined;
  /** The `Idempotency-Key` of this call (idempotent operations only). Generated when absent. */
  idempotencyKey?: string | undefined;
  /** Extra headers for this call; they cannot replace the ones the client computes. */
  headers?: HeadersLike | undefined;
}

export const DEFAULTS = {
  timeoutMs: 60_000,
  maxRetries: 2,
  maxRetryDelayMs: 60_000,
  initialRetryDelayMs: 500,
} as const;

/** The largest delay `setTimeout` honours; larger values fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;
