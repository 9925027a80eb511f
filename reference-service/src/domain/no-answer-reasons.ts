/**
 * Why a delivery attempt got no HTTP answer, as the delivery log keeps it (`webhook_deliveries.
 * no_answer_reason`, migration 0028, whose CHECK lists the same codes). A closed set on purpose: the log is
 * read by the tenant, so it holds what the outbound client can tell apart and nothing else, never an error's
 * text or an address (the service's own log keeps those). Not part of the /v1 delivery record, which the spec
 * fixes: the portal reads it from its own route. No imports: the portal's bundle takes this file as it is.
 */
export const NO_ANSWER_REASONS = [
  /** No answer within the total timeout (the connection may or may not have been opened). */
  'timeout',
  /** The TCP (and TLS) connection was not opened within the connect timeout. */
  'connect_timeout',
  /** The receiver's host refused the connection: nothing listens on that port. */
  'refused',
  /** The connection was closed or reset before a status line came. */
  'reset',
  /** No route to the receiver's address (host or network unreachable). */
  'unreachable',
  /** The name did not resolve (no such name, or its DNS did not answer in time). */
  'dns',
  /** The TLS handshake or the receiver's certificate failed. */
  'tls',
  /** What came back was not HTTP. */
  'invalid_response',
  /** The outbound guard refused to dial: the URL's rules, or an address the name resolves to. */
  'guard_refused',
  /** A listener endpoint had no `svc-webhooks listen` session connected, or it went away mid-delivery. */
  'listener_gone',
  /** The listener took the delivery but never reported its local app's answer. */
  'listener_silent',
  /** The service stopped while waiting for the listener's report. */
  'service_stopped',
  /** A failure with none of the names above (the service's log has its details). */
  'other',
] as const;

export type NoAnswerReason = (typeof NO_ANSWER_REASONS)[number];

export function isNoAnswerReason(value: unknown): value is NoAnswerReason {
  return (NO_ANSWER_REASONS as readonly unknown[]).includes(value);
}
