import { causesOf } from '../domain/errors.js';
import type { NoAnswerReason } from '../domain/no-answer-reasons.js';

/** System and undici error codes, by the reason the delivery log names them with. */
const BY_CODE: Record<string, NoAnswerReason> = {
  ECONNREFUSED: 'refused',
  UND_ERR_CONNECT_TIMEOUT: 'connect_timeout',
  // The kernel gave up on the TCP handshake: the connection was never opened.
  ETIMEDOUT: 'connect_timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  // undici's "other side closed": the receiver hung up before its status line.
  UND_ERR_SOCKET: 'reset',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  // The receiver's headers went past undici's bound: an answer, but not one the log can keep.
  UND_ERR_HEADERS_OVERFLOW: 'invalid_response',
  // Not EADDRNOTAVAIL (this host has no ephemeral port left) nor ENETDOWN (this host's own network is down):
  // the service's trouble, which `other` sends to the service's log instead of to the receiver's network.
  // OpenSSL's handshake failures (a wrong protocol version, plain HTTP on the TLS port) surface as EPROTO.
  EPROTO: 'tls',
};

/** Certificate verification codes: Node names them after OpenSSL's, without a common prefix. */
const CERTIFICATE_CODE = /^(ERR_TLS_|ERR_SSL_)|CERT|UNABLE_TO_|HOSTNAME_MISMATCH/;

function reasonOfCode(code: string): NoAnswerReason | undefined {
  const known = BY_CODE[code];
  if (known !== undefined) return known;
  if (CERTIFICATE_CODE.test(code)) return 'tls';
  if (code.startsWith('HPE_')) return 'invalid_response';
  return undefined;
}

/**
 * The delivery log's name for a request that failed before any status line: the first error in the cause
 * chain that has one (undici wraps the socket's error). Only the code is read, never the message, so what
 * is stored cannot carry an address or anything else the error says.
 */
export function failureCode(error: unknown): NoAnswerReason {
  for (const cause of causesOf(error)) {
    if (!(cause instanceof Error)) continue;
    // The total timeout's abort (guarded-client.ts), or undici's own.
    if (cause.name === 'TimeoutError' || cause.name === 'AbortError') return 'timeout';
    // undici's llhttp parser: bytes came back, but not an HTTP answer (its code is not always set).
    if (cause.name === 'HTTPParserError') return 'invalid_response';
    const code = (cause as { code?: unknown }).code;
    const reason = typeof code === 'string' ? reasonOfCode(code) : undefined;
    if (reason !== undefined) return reason;
  }
  return 'other';
}
