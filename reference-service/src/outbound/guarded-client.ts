// The excerpt rule (bytes kept, no split character, no NULs) is the contract's, shared with the mock.
import { excerptOf } from '@svc-kit/contract';
import { Agent, type Dispatcher } from 'undici';
import { causesOf } from '../domain/errors.js';
import type { NoAnswerReason } from '../domain/no-answer-reasons.js';
import type { TargetPolicy } from '../domain/url-policy.js';
import { failureCode } from './failure-code.js';
import { guardedLookup } from './guarded-lookup.js';
import { type BlockedCode, checkTargetUrl, OutboundBlockedError } from './target-policy.js';

export interface GuardedClientOptions extends TargetPolicy {
  /** Time allowed to open the TCP (and TLS) connection. */
  connectTimeoutMs?: number;
  /** Time allowed for the whole exchange, from the first lookup to the last byte read. */
  totalTimeoutMs?: number;
  /** How much of the answer is read (and kept); the connection is dropped after that. */
  maxExcerptBytes?: number;
  userAgent?: string;
}

export type PostOutcome =
  | {
      kind: 'answered';
      status: number;
      excerpt: string;
      latencyMs: number;
      /** The answer's headers, names in lower case (peer answers carry their signature there). */
      headers: Readonly<Record<string, string | string[] | undefined>>;
    }
  /**
   * Refused by the guard before any connection was opened. `reason` is for the service's log (it may name
   * the address); `code` is what the delivery log keeps.
   */
  | { kind: 'blocked'; reason: string; code: BlockedCode; latencyMs: number }
  /** Timeout, refused connection, TLS or protocol failure; `reason` and `code` as for `blocked`. */
  | { kind: 'failed'; reason: string; code: NoAnswerReason; latencyMs: number };

export interface GuardedClient {
  post(url: string, headers: Record<string, string>, body: string): Promise<PostOutcome>;
  close(): Promise<void>;
}

export const DEFAULT_USER_AGENT = 'svc-kit-reference-service/0.1 (+webhooks)';

/** The guard's refusal, wherever undici put it (it may wrap connector errors). */
function blockedBy(error: unknown): OutboundBlockedError | undefined {
  const blocked = causesOf(error).find((cause) => cause instanceof OutboundBlockedError);
  return blocked instanceof OutboundBlockedError ? blocked : undefined;
}

function failureReason(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timed out';
    const code = (error as { code?: unknown }).code;
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect timed out';
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timed out';
    if (typeof code === 'string') return `request failed (${code})`;
  }
  return 'request failed';
}

const timedOut = () => new DOMException('total timeout', 'TimeoutError');

/**
 * The one way the service POSTs to a URL someone else chose: no IP literals, every resolved address checked
 * and the connection pinned to it, no redirects, connect and total timeouts, at most `maxExcerptBytes` of the
 * answer read.
 */
export function createGuardedClient(options: GuardedClientOptions): GuardedClient {
  const policy: TargetPolicy = { resolve: options.resolve, allowLocalhost: options.allowLocalhost };
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  const totalTimeoutMs = options.totalTimeoutMs ?? 10_000;
  const maxExcerptBytes = options.maxExcerptBytes ?? 500;
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const agent = new Agent({
    connect: { lookup: guardedLookup(policy), timeout: connectTimeoutMs },
    connections: 64,
    headersTimeout: totalTimeoutMs,
    bodyTimeout: totalTimeoutMs,
  });

  function post(url: string, headers: Record<string, string>, body: string): Promise<PostOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    let target: URL;
    try {
      target = checkTargetUrl(url, policy);
    } catch (error) {
      const blocked = blockedBy(error);
      return Promise.resolve({
        kind: 'blocked',
        reason: blocked?.message ?? 'refused',
        code: blocked?.code ?? 'guard_refused',
        latencyMs: elapsed(),
      });
    }
    return new Promise((resolve) => {
      let controller: Dispatcher.DispatchController | undefined;
      let settled = false;
      let status = 0;
      let latencyMs = 0;
      let answerHeaders: Record<string, string | string[] | undefined> = {};
      const chunks: Buffer[] = [];
      let size = 0;
      const settle = (outcome: PostOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const answered = () => {
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        settle({
          kind: 'answered',
          status,
          excerpt: excerptOf(bytes, maxExcerptBytes),
          latencyMs,
          headers: answerHeaders,
        });
      };
      // A request still waiting for a connection when time is up is aborted as soon as undici starts it.
      const timer = setTimeout(() => {
        // Time ran out while the answer was still coming: what came is kept, as when it breaks off.
        if (status !== 0) answered();
        else settle({ kind: 'failed', reason: 'timed out', code: 'timeout', latencyMs: elapsed() });
        controller?.abort(timedOut());
      }, totalTimeoutMs);
      // undici's dispatcher, not request(): no response stream, abort signal or URL parsing per call.
      agent.dispatch(
        {
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: 'POST',
          headers: { ...headers, 'user-agent': userAgent },
          body,
        },
        {
          onRequestStart(started) {
            controller = started;
            if (settled) started.abort(timedOut());
          },
          onResponseStart(_controller, statusCode, headers) {
            // 1xx answers are interim: the final status comes after them.
            if (statusCode < 200) return;
            status = statusCode;
            answerHeaders = headers;
            latencyMs = elapsed();
          },
          onResponseData(current, chunk) {
            if (status === 0 || settled) return;
            chunks.push(chunk);
            size += chunk.length;
            if (size >= maxExcerptBytes) {
              answered();
              // Enough is read: the rest is never read, and the connection is dropped with it.
              current.abort(new Error('excerpt read'));
            }
          },
          onResponseEnd() {
            answered();
          },
          onResponseError(_controller, error) {
            // An answer that breaks off after its status line keeps what came: the status still stands.
            if (status !== 0) return answered();
            const blocked = blockedBy(error);
            settle(
              blocked !== undefined
                ? { kind: 'blocked', reason: blocked.message, code: blocked.code, latencyMs: elapsed() }
                : {
                    kind: 'failed',
                    reason: failureReason(error),
                    code: failureCode(error),
                    latencyMs: elapsed(),
                  },
            );
          },
        },
      );
    });
  }

  return { post, close: () => agent.close() };
}
