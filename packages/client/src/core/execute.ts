import type { Operation } from '@svc-kit/contract';
import { APIConnectionError } from '../errors/connection-errors.js';
import { errorFromResponse } from '../errors/from-response.js';
import { ServiceError } from '../errors/service-error.js';
import { type ClientConfig, checkCount, checkTimeout, refuse } from './config.js';
import { buildHeaders } from './headers.js';
import { isValidIdempotencyKey, newIdempotencyKey } from './idempotency-key.js';
import type { Fetch, RequestOptions } from './options.js';
import { type PreparedRequest, prepareRequest, type RawInput } from './prepare.js';
import { type APIResult, readAnswer } from './read-answer.js';
import { retryDelay } from './retry-policy.js';
import { sendAttempt } from './send-attempt.js';
import { sleep } from './sleep.js';

/**
 * One logical call: validate, then attempt, and retry while the policy allows. Everything that goes
 * wrong is a `ServiceError`; the Idempotency-Key is chosen once, here, and reused by every attempt.
 */
export async function execute(
  config: ClientConfig,
  op: Operation,
  input: RawInput | undefined,
  options: RequestOptions | undefined,
): Promise<APIResult<unknown>> {
  const settings = resolveRequestSettings(config, op, options ?? {});
  const prepared: PreparedRequest = prepareRequest(op, input ?? {}, config.baseUrl);
  const headers = buildHeaders(
    config,
    op,
    options?.headers,
    settings.idempotencyKey,
    prepared.body !== undefined,
  );
  const init: RequestInit = { method: op.method, headers };
  if (prepared.body !== undefined) init.body = prepared.body;
  // Only the portal sends cookies, and only to its own origin: 'same-origin' keeps the session cookie
  // from leaving with a request to any other address, whatever baseUrl says. Some edge runtimes reject
  // the `credentials` field, so it is set only when it is needed.
  if (config.auth.kind === 'session') init.credentials = 'same-origin';

  const { log } = config;
  for (let retriesDone = 0; ; retriesDone++) {
    let failure: ServiceError;
    const started = Date.now();
    log.debug(`${op.operationId}: ${op.method} ${prepared.url} (attempt ${retriesDone + 1})`);
    try {
      const answer = await sendAttempt(
        currentFetch(config, op),
        prepared.url,
        init,
        settings.timeoutMs,
        settings.signal,
        config.redact,
      );
      log.debug(
        `${op.operationId}: ${answer.response.status} in ${Date.now() - started} ms` +
          ` (request ${answer.response.headers.get('x-request-id') ?? 'without id'})`,
      );
      if (answer.response.ok) return readAnswer(op, answer, config.validateResponses);
      failure = errorFromResponse(answer.response, answer.text, config.redact);
    } catch (error) {
      if (!(error instanceof APIConnectionError)) throw error;
      failure = error;
    }
    const delay = retryDelay(op, failure, retriesDone, {
      maxRetries: settings.maxRetries,
      maxRetryDelayMs: config.maxRetryDelayMs,
      initialRetryDelayMs: config.initialRetryDelayMs,
    });
    if (delay === undefined) throw failure;
    log.info(
      `${op.operationId}: retrying in ${Math.round(delay)} ms (retry ${retriesDone + 1} of ${settings.maxRetries}) after ${failure.name}: ${failure.message}`,
    );
    await sleep(delay, settings.signal);
  }
}

interface RequestSettings {
  signal: AbortSignal | undefined;
  timeoutMs: number;
  maxRetries: number;
  idempotencyKey: string | undefined;
}

function resolveRequestSettings(
  config: ClientConfig,
  op: Operation,
  options: RequestOptions,
): RequestSettings {
  const id = op.operationId;
  if (typeof options !== 'object' || options === null) refuse([], 'expected an options object', id);
  const { signal, idempotencyKey } = options;
  if (signal !== undefined && !isAbortSignal(signal)) refuse(['signal'], 'expected an AbortSignal', id);
  if (idempotencyKey !== undefined) {
    if (!op.flags.idempotent) {
      refuse(['idempotencyKey'], `${id} is not idempotent, so it takes no Idempotency-Key`, id);
    }
    if (!isValidIdempotencyKey(idempotencyKey)) {
      refuse(['idempotencyKey'], 'expected 1 to 255 printable ASCII characters, without outer spaces', id);
    }
  }
  return {
    signal,
    timeoutMs: checkTimeout(options.timeoutMs, ['timeoutMs'], id) ?? config.timeoutMs,
    maxRetries: checkCount(options.maxRetries, ['maxRetries'], id) ?? config.maxRetries,
    idempotencyKey: op.flags.idempotent ? (idempotencyKey ?? newIdempotencyKey()) : undefined,
  };
}

/** The configured fetch, or the global one as it is now (not as it was when the client was built). */
function currentFetch(config: ClientConfig, op: Operation): Fetch {
  const fetch = config.fetch ?? (globalThis as { fetch?: Fetch }).fetch;
  if (typeof fetch !== 'function') {
    throw new ServiceError(
      `${op.operationId}: no fetch function: this runtime has none, pass the fetch option`,
    );
  }
  // Called as a plain function: a browser's fetch throws "Illegal invocation" when called as a method.
  return (url, init) => fetch.call(undefined, url, init);
}

function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AbortSignal).aborted === 'boolean' &&
    typeof (value as AbortSignal).addEventListener === 'function'
  );
}
