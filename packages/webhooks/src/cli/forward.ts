import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** The first 500 bytes of the local answer are kept, as the service keeps of a dialled endpoint's. */
export const EXCERPT_BYTES = 500;
/** The local app gets as long as a dialled endpoint gets from the service. */
export const LOCAL_TIMEOUT_MS = 10_000;

export type LocalFailure = 'refused' | 'timeout' | 'unreachable' | 'invalid_response';

export type LocalOutcome =
  | { kind: 'answered'; status: number; latencyMs: number; excerpt: string }
  | { kind: 'failed'; failure: LocalFailure; latencyMs: number; detail: string; tls: boolean };

/** The first bytes of the answer as text; a character cut at the limit and NUL characters are dropped. */
function readExcerpt(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      const bytes = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES);
      resolve(new TextDecoder().decode(bytes, { stream: true }).replaceAll('\u0000', ''));
    };
    response.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= EXCERPT_BYTES) {
        response.destroy();
        done();
      }
    });
    response.on('end', done);
    response.on('error', done);
  });
}

function failureOf(error: NodeJS.ErrnoException): { failure: LocalFailure; detail: string; tls: boolean } {
  const code = error.code ?? '';
  const tls = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO)/.test(code);
  if (code === 'ECONNREFUSED') return { failure: 'refused', detail: 'connection refused', tls };
  if (['ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'].includes(code) || tls) {
    return { failure: 'unreachable', detail: code, tls };
  }
  return { failure: 'invalid_response', detail: code || error.message, tls };
}

/**
 * POSTs the relayed delivery to the local app with exactly its headers and body (node:http, which adds
 * only Host, Content-Length and Connection, where fetch would add headers of its own), never following a
 * redirect, within the 10-second limit.
 */
export function forwardToLocal(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<LocalOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const request = send(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      timeout: LOCAL_TIMEOUT_MS,
    });
    request.on('timeout', () => {
      request.destroy();
      resolve({
        kind: 'failed',
        failure: 'timeout',
        latencyMs: elapsed(),
        detail: 'no answer in 10 s',
        tls: false,
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      resolve({ kind: 'failed', latencyMs: elapsed(), ...failureOf(error) });
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const latencyMs = elapsed();
      void readExcerpt(response).then((excerpt) => resolve({ kind: 'answered', status, latencyMs, excerpt }));
    });
    request.end(body);
  });
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
    if (outcome.tls) {
      return `TLS with ${forwardTo} failed (${outcome.detail}): for a local app, use http:// in --forward-to.`;
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
