/** The first 500 bytes of the local answer are kept, as the service keeps of a dialled endpoint's. */
export const EXCERPT_BYTES = 500;
/** The local app gets as long as a dialled endpoint gets from the service. */
export const LOCAL_TIMEOUT_MS = 10_000;

export type LocalFailure = 'refused' | 'timeout' | 'unreachable' | 'invalid_response';

export type LocalOutcome =
  | { kind: 'answered'; status: number; latencyMs: number; excerpt: string }
  | { kind: 'failed'; failure: LocalFailure; latencyMs: number; detail: string };

async function firstBytes(response: Response, max: number): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = Buffer.concat(chunks).subarray(0, max);
  // A character cut at the limit is dropped rather than shown as a replacement character.
  return new TextDecoder().decode(bytes, { stream: true });
}

function failureOf(error: unknown): { failure: LocalFailure; detail: string } {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? '';
  if ((error as Error).name === 'TimeoutError') return { failure: 'timeout', detail: 'no answer in 10 s' };
  if (code === 'ECONNREFUSED') return { failure: 'refused', detail: 'connection refused' };
  if (['ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'].includes(code)) {
    return { failure: 'unreachable', detail: code };
  }
  return { failure: 'invalid_response', detail: cause?.message ?? (error as Error).message };
}

/** POSTs the exact body and headers of a relayed delivery to the local app. */
export async function forwardToLocal(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<LocalOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(LOCAL_TIMEOUT_MS),
    });
    const excerpt = await firstBytes(response, EXCERPT_BYTES);
    return { kind: 'answered', status: response.status, latencyMs: elapsed(), excerpt };
  } catch (error) {
    return { kind: 'failed', latencyMs: elapsed(), ...failureOf(error) };
  }
}

/** What to tell the person when the local answer is not a success: the likely cause and the fix. */
export function adviceFor(outcome: LocalOutcome, forwardTo: string): string | undefined {
  if (outcome.kind === 'failed') {
    if (outcome.failure === 'refused') {
      return `Nothing is listening at ${forwardTo}: start your app, or fix --forward-to.`;
    }
    if (outcome.failure === 'timeout') {
      return 'Your app took over 10 s to answer; the service gives a real endpoint the same 10 s.';
    }
    return `Could not reach ${forwardTo} (${outcome.detail}): check the host and port in --forward-to.`;
  }
  const { status, excerpt } = outcome;
  if (status === 404 || status === 405) {
    return `Your app has no POST route at ${new URL(forwardTo).pathname} (it answered ${status}): check the path in --forward-to.`;
  }
  if (
    (status === 400 || status === 401 || status === 403) &&
    /signature|secret|svc-webhooks/i.test(excerpt)
  ) {
    return 'Your app could not verify the signature: give it the listener\'s secret ("svc-webhooks listen --print-secret").';
  }
  if (status >= 300 && status < 400) {
    return 'Your app answered with a redirect; deliveries are not redirected: point --forward-to at the final URL.';
  }
  if (status >= 500) return 'Your app failed while handling the delivery: see its own log.';
  return undefined;
}
