import { excerptOf, RESPONSE_EXCERPT_BYTES } from '@svc-kit/contract';
import { bypass } from 'msw';

/** A receiver in the test's own process: the app's webhook handler as a function of a `Request`. */
export type WebhookReceiver = (request: Request) => Response | Promise<Response>;

/** How one attempt ended, in the terms of the delivery log. */
export type DialOutcome =
  | { kind: 'answered'; status: number; excerpt: string; answeredAt: number }
  /** No answer: refused, broken off, timed out, or the in-process receiver threw. */
  | { kind: 'failed'; reason: string };

export interface DialRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** The sandbox's clock, which stamps the moment the answer's status arrived. */
  now: () => number;
}

class TimedOut extends Error {
  override name = 'TimedOut';
}

/** Reads at most the excerpt's bytes of an answer, then lets the rest go (the service reads no more). */
async function readExcerpt(response: Response, deadline: Promise<never>): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < RESPONSE_EXCERPT_BYTES) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next.done) break;
      chunks.push(next.value);
      size += next.value.byteLength;
    }
  } catch {
    // Broken off or out of time while the answer was coming: what came is kept, as the service keeps it.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return excerptOf(bytes);
}

function describe(error: unknown): string {
  if (error instanceof TimedOut) return 'timed out';
  if (!(error instanceof Error)) return `request failed (${String(error)})`;
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  return `request failed (${detail})`;
}

/**
 * One attempt: a POST of the signed body, to `receiver` in process when the test gave one, else over the
 * network with the platform's `fetch`. The request is marked with msw's `bypass()`, so that no msw
 * handler (the sandbox's own included) answers it and no unhandled-request rule refuses it: msw strips the
 * mark and lets the request go to the real receiver. No redirect is followed, and the whole exchange,
 * the excerpt included, has `timeoutMs`, as in the service.
 */
export async function dial(
  request: DialRequest,
  receiver: WebhookReceiver | undefined,
): Promise<DialOutcome> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new TimedOut('timed out'));
      controller.abort();
    }, request.timeoutMs);
  });
  deadline.catch(() => undefined);
  const init: RequestInit = {
    method: 'POST',
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
    signal: controller.signal,
  };
  try {
    const answer = receiver
      ? Promise.resolve().then(() => receiver(new Request(request.url, init)))
      : fetch(bypass(request.url, init));
    const response = await Promise.race([answer, deadline]);
    if (!(response instanceof Response)) {
      return { kind: 'failed', reason: 'the receiver did not return a Response' };
    }
    const answeredAt = request.now();
    const excerpt = await readExcerpt(response, deadline);
    return { kind: 'answered', status: response.status, excerpt, answeredAt };
  } catch (error) {
    return { kind: 'failed', reason: describe(error) };
  } finally {
    clearTimeout(timer);
  }
}
