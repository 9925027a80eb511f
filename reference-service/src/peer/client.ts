import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { signBytes } from '../domain/contacts/keys.js';
import { checkWebhookUrl, type ResolveHost } from '../domain/url-policy.js';
import type { Signer } from './own-identity.js';
import {
  HEADER_NONCE,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  MAX_PEER_BODY_BYTES,
  type PeerVerb,
  peerAnswers,
  signingText,
} from './protocol.js';

export type PeerOutcome<V extends PeerVerb> =
  | { kind: 'ok'; body: z.output<(typeof peerAnswers)[V]> }
  /** The peer answered and said no (a 4xx with its refusal code). */
  | { kind: 'refused'; code: string; message: string }
  /** No usable answer: network error, timeout, 5xx, or an answer that is not the protocol's. */
  | { kind: 'unreachable'; reason: string };

export interface PeerTarget {
  /** The target card's endpoint (`…/peer/v1`). */
  endpoint: string;
  fingerprint: string;
}

export interface PeerClientOptions {
  resolveHost: ResolveHost;
  allowLocalhost: boolean;
  timeoutMs: number;
  now: number;
}

/**
 * One signed call to a peer. Never throws for anything the peer or the network does: the outcome says
 * what happened, so the caller can keep its own change and report `notified: false` or `unreachable`.
 * The endpoint goes through the same address policy as webhook URLs (https, public addresses; loopback
 * only with the sandbox opt-in), and redirects are not followed.
 */
export async function callPeer<V extends PeerVerb>(
  signer: Signer,
  target: PeerTarget,
  verb: V,
  payload: Record<string, unknown>,
  options: PeerClientOptions,
): Promise<PeerOutcome<V>> {
  const verdict = await checkWebhookUrl(target.endpoint, {
    resolve: options.resolveHost,
    allowLocalhost: options.allowLocalhost,
  });
  if (!verdict.ok) return { kind: 'unreachable', reason: `the peer endpoint is refused: ${verdict.reason}` };
  const url = new URL(`${verdict.url.replace(/\/+$/, '')}/identities/${target.fingerprint}/${verb}`);
  const body = JSON.stringify({ ...payload, card: signer.card });
  const timestamp = String(options.now);
  const nonce = randomBytes(18).toString('base64url');
  const signature = signBytes(
    signer.privateKey,
    Buffer.from(signingText('POST', url.pathname, timestamp, nonce, body), 'utf8'),
  ).toString('base64url');
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [HEADER_TIMESTAMP]: timestamp,
        [HEADER_NONCE]: nonce,
        [HEADER_SIGNATURE]: signature,
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    return {
      kind: 'unreachable',
      reason: timedOut ? `no answer within ${options.timeoutMs} ms` : 'the peer could not be reached',
    };
  }
  let text: string;
  try {
    text = await response.text();
  } catch {
    return { kind: 'unreachable', reason: 'the peer’s answer was cut off' };
  }
  if (text.length > MAX_PEER_BODY_BYTES)
    return { kind: 'unreachable', reason: 'the peer’s answer is too large' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'unreachable', reason: `the peer answered ${response.status} without JSON` };
  }
  if (response.status >= 400 && response.status < 500) {
    const error = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    return {
      kind: 'refused',
      code: typeof error?.code === 'string' ? error.code.slice(0, 64) : `http_${response.status}`,
      message: typeof error?.message === 'string' ? error.message.slice(0, 512) : 'refused',
    };
  }
  if (response.status !== 200) {
    return { kind: 'unreachable', reason: `the peer answered ${response.status}` };
  }
  const parsed = peerAnswers[verb].safeParse(json);
  if (!parsed.success) return { kind: 'unreachable', reason: 'the peer’s answer is not protocol v1' };
  return { kind: 'ok', body: parsed.data as z.output<(typeof peerAnswers)[V]> };
}
