import { APIConnectionError, APITimeoutError, APIUserAbortError } from '../errors/connection-errors.js';
import type { Fetch } from './options.js';

export interface Answer {
  response: Response;
  /** The whole body, read within the attempt's time limit. */
  text: string;
}

/**
 * One HTTP exchange, bounded by `timeoutMs` and by the caller's signal. The body is read before the
 * timer stops, so a server that stalls mid-body also times out. The outcome does not depend on `fetch`
 * honouring the signal: the attempt settles when the signal fires even if `fetch` never does.
 */
export async function sendAttempt(
  fetch: Fetch,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  userSignal: AbortSignal | undefined,
  redact: (text: string) => string,
): Promise<Answer> {
  if (userSignal?.aborted) throw new APIUserAbortError(userSignal.reason);
  const controller = new AbortController();
  let timedOut = false;
  const onUserAbort = () => controller.abort(userSignal?.reason);
  userSignal?.addEventListener('abort', onUserAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new APITimeoutError(timeoutMs));
  }, timeoutMs);
  let stopWaiting: (() => void) | undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    stopWaiting = () => controller.signal.removeEventListener('abort', onAbort);
    const onAbort = () => reject(controller.signal.reason);
    controller.signal.addEventListener('abort', onAbort, { once: true });
  });
  const exchange = (async () => {
    const response = await fetch(url, { ...init, signal: controller.signal });
    return { response, text: await response.text() };
  })();
  // Whichever loses the race must not surface as an unhandled rejection.
  exchange.catch(() => undefined);
  aborted.catch(() => undefined);
  try {
    return await Promise.race([exchange, aborted]);
  } catch (cause) {
    if (userSignal?.aborted) throw new APIUserAbortError(userSignal.reason);
    if (timedOut) throw new APITimeoutError(timeoutMs);
    throw new APIConnectionError(`Connection error: ${redact(describe(cause))}`, { cause });
  } finally {
    clearTimeout(timer);
    stopWaiting?.();
    userSignal?.removeEventListener('abort', onUserAbort);
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    // undici reports "fetch failed" and puts the useful part (ECONNREFUSED, ENOTFOUND, ...) in `cause`.
    const inner = cause.cause instanceof Error ? ` (${cause.cause.message})` : '';
    return `${cause.message}${inner}`;
  }
  return String(cause);
}
