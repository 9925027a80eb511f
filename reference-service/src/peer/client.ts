import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../domain/json-depth.js';
import type { ResolveHost } from '../domain/url-policy.js';
import { createGuardedClient, type PostOutcome } from '../outbound/guarded-client.js';
import { publicKeyFromRaw, signBytes, verifyBytes } from './keys.js';
import type { Signer } from './own-identity.js';
import {
  type AnsweredRequest,
  answerSigningText,
  HEADER_ANSWER_SIGNATURE,
  HEADER_ANSWER_TIMESTAMP,
  HEADER_NONCE,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  MAX_PEER_BODY_BYTES,
  type PeerVerb,
  peerAnswers,
  REPLAY_WINDOW_MS,
  signingText,
  TIMESTAMP,
} from './protocol.js';
import type { PeerSettings } from './settings.js';
import { header, type PeerHeaders } from './verify-request.js';

export type PeerOutcome<V extends PeerVerb> =
  | { kind: 'ok'; body: z.output<(typeof peerAnswers)[V]> }
  /**
   * The peer answered and said no (a 4xx with its refusal code); a 429 also says how many seconds to wait
   * (its `retry_after`, at most a day; a minute when it names none).
   */
  | { kind: 'refused'; code: string; message: string; retryAfter?: number }
  /** No usable answer: network error, timeout, 5xx, or an answer that is not the protocol's. */
  | { kind: 'unreachable'; reason: string };

/** Peers see who calls them; webhook receivers see the `(+webhooks)` agent of the same client. */
export const PEER_USER_AGENT = 'svc-kit-reference-service/0.1 (+peer)';

export interface PeerTarget {
  /** The target card's endpoint (`…/peer/v1`). */
  endpoint: string;
  fingerprint: string;
  /** The raw Ed25519 key (base64url) the target's card names: only answers it signed are believed. */
  public_key: string;
}

/**
 * One signed call to a peer. Never throws for anything the peer or the network does: the outcome says
 * what happened, so the caller can keep its own change and report `notified: false` or `unreachable`.
 * The call goes through the guarded outbound client (src/outbound): https, every resolved address public
 * (loopback only with the sandbox opt-in), the socket pinned to the checked address, no redirects.
 */
export async function callPeer<V extends PeerVerb>(
  signer: Signer,
  target: PeerTarget,
  verb: V,
  payload: Record<string, unknown>,
  options: Pick<PeerSettings, 'allowLocalhost' | 'timeoutMs'> & { resolveHost: ResolveHost; now: number },
): Promise<PeerOutcome<V>> {
  const href = `${target.endpoint.replace(/\/+$/, '')}/identities/${target.fingerprint}/${verb}`;
  if (!URL.canParse(href))
    return { kind: 'unreachable', reason: 'the peer endpoint is refused: it is not an absolute URL' };
  const url = new URL(href);
  const body = JSON.stringify({ ...payload, card: signer.card });
  const timestamp = String(options.now);
  const nonce = randomBytes(18).toString('base64url');
  const signature = signBytes(
    signer.privateKey,
    Buffer.from(signingText('POST', url.pathname, timestamp, nonce, body), 'utf8'),
  ).toString('base64url');
  // The guarded client resolves the name once, checks every address and pins the socket to it, so the
  // address that was checked is the one connected to (no DNS-rebinding window); no redirect is followed.
  const client = createGuardedClient({
    resolve: options.resolveHost,
    allowLocalhost: options.allowLocalhost,
    connectTimeoutMs: options.timeoutMs,
    totalTimeoutMs: options.timeoutMs,
    // One byte more than allowed, so that an answer over the limit is seen as such.
    maxExcerptBytes: MAX_PEER_BODY_BYTES + 1,
    userAgent: PEER_USER_AGENT,
  });
  let outcome: PostOutcome;
  try {
    outcome = await client.post(
      url.href,
      {
        'content-type': 'application/json',
        [HEADER_TIMESTAMP]: timestamp,
        [HEADER_NONCE]: nonce,
        [HEADER_SIGNATURE]: signature,
      },
      body,
    );
  } finally {
    await client.close();
  }
  if (outcome.kind === 'blocked') {
    return { kind: 'unreachable', reason: `the peer endpoint is refused: ${outcome.reason}` };
  }
  if (outcome.kind === 'failed') {
    return {
      kind: 'unreachable',
      reason:
        outcome.code === 'timeout' || outcome.code === 'connect_timeout'
          ? `no answer within ${options.timeoutMs} ms`
          : 'the peer could not be reached',
    };
  }
  const text = outcome.excerpt;
  if (Buffer.byteLength(text, 'utf8') > MAX_PEER_BODY_BYTES)
    return { kind: 'unreachable', reason: 'the peer’s answer is too large' };
  if (outcome.status >= 500 || (outcome.status !== 200 && outcome.status < 400)) {
    return { kind: 'unreachable', reason: `the peer answered ${outcome.status}` };
  }
  const answered = {
    fingerprint: target.fingerprint,
    path: url.pathname,
    requestTimestamp: timestamp,
    requestNonce: nonce,
  };
  const unproven = answerProofFailure(target, answered, outcome.status, outcome.headers, text, options.now);
  if (unproven !== undefined) return { kind: 'unreachable', reason: unproven };
  // Read like a request body: a value nested thousands deep parses, but every recursion over it after
  // (validation, the reply's serialiser) would exhaust the stack.
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    return { kind: 'unreachable', reason: `the peer’s answer nests deeper than ${MAX_JSON_DEPTH} levels` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'unreachable', reason: `the peer answered ${outcome.status} without JSON` };
  }
  if (outcome.status >= 400 && outcome.status < 500) {
    const error = (json as { error?: { code?: unknown; message?: unknown; retry_after?: unknown } } | null)
      ?.error;
    const wait = error?.retry_after;
    const retryAfter =
      typeof wait === 'number' && Number.isInteger(wait) && wait > 0 ? Math.min(wait, 86_400) : 60;
    return {
      kind: 'refused',
      code: typeof error?.code === 'string' ? error.code.slice(0, 64) : `http_${outcome.status}`,
      message: typeof error?.message === 'string' ? error.message.slice(0, 512) : 'refused',
      ...(outcome.status === 429 ? { retryAfter } : {}),
    };
  }
  const parsed = peerAnswers[verb].safeParse(json);
  if (!parsed.success) return { kind: 'unreachable', reason: 'the peer’s answer is not protocol v1' };
  return { kind: 'ok', body: parsed.data as z.output<(typeof peerAnswers)[V]> };
}

/**
 * Why an answer is not believed, or `undefined` when the identity the card names signed it for this very
 * request (its nonce and time) and within the replay window. Whoever else answers at the endpoint (a
 * hijacked name, a card minted for someone else's server, a replay of an older answer) is unreachable.
 */
function answerProofFailure(
  target: PeerTarget,
  request: AnsweredRequest,
  status: number,
  headers: PeerHeaders,
  body: string,
  now: number,
): string | undefined {
  const unsigned = 'the peer’s answer is not signed by the identity its card names';
  const at = header(headers, HEADER_ANSWER_TIMESTAMP);
  const signature = header(headers, HEADER_ANSWER_SIGNATURE);
  const key = publicKeyFromRaw(target.public_key);
  if (at === undefined || signature === undefined || key === undefined || !TIMESTAMP.test(at))
    return unsigned;
  const text = answerSigningText(request, status, at, body);
  if (!verifyBytes(key, Buffer.from(text, 'utf8'), Buffer.from(signature, 'base64url'))) return unsigned;
  if (Math.abs(now - Number(at)) > REPLAY_WINDOW_MS)
    return 'the peer’s answer is outside the 300 second window';
  return undefined;
}
