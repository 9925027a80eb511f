import type { WebhookErrorReason } from '@svc-kit/webhooks';

interface Explanation {
  /** What the refusal means, in plain words. */
  readonly meaning: string;
  /** What to do about it. */
  readonly fix: string;
}

/** One entry per reason, so a new reason in the core fails the type check here until it is explained. */
export const EXPLANATIONS: Readonly<Record<WebhookErrorReason, Explanation>> = {
  missing_header: {
    meaning: 'The request has no X-Service-Signature header, so nothing proves the service sent it.',
    fix:
      'Capture all request headers. If a proxy, load balancer or logging tool sits in front of the receiver, ' +
      'make sure it keeps the X-Service-* headers.',
  },
  malformed_header: {
    meaning: 'The X-Service-Signature header is not of the form t=<unix seconds>,v1=<64 hex digits>.',
    fix: 'Pass the header value exactly as received, without quotes, truncation or added spaces.',
  },
  timestamp_too_old: {
    meaning:
      'The signature is genuine, but it was made longer ago than the tolerance allows: a replay, a delivery ' +
      'that took very long, or a receiver clock that is ahead.',
    fix:
      'Re-checking a delivery captured earlier? Pass --now with the Unix second it arrived. On a live ' +
      'receiver, check its clock (NTP) rather than raising the tolerance.',
  },
  timestamp_too_new: {
    meaning: 'The signature is genuine, but dated further in the future than the tolerance allows.',
    fix: "The receiver's clock is probably behind: check NTP. With --now, give Unix seconds (not milliseconds).",
  },
  no_matching_signature: {
    meaning:
      'No v1 value in the header is the HMAC of this body under the secret(s) given: a different secret, or a ' +
      'body that differs from the bytes the service signed, even by one space or newline.',
    fix:
      "Use this endpoint's current signing secret (during a rotation, give both: --secret new --secret old) " +
      'and the body exactly as received, never re-serialised or re-indented JSON.',
  },
  body_was_parsed: {
    meaning: 'The body reached the verifier as parsed JSON instead of raw bytes.',
    fix: 'Give the raw body file exactly as received.',
  },
  invalid_json: {
    meaning: 'The signature is genuine, but the body is not JSON (or not UTF-8).',
    fix: 'Check that nothing compressed or re-encoded the body between the service and the capture.',
  },
  invalid_payload: {
    meaning: 'The signature is genuine and the body is JSON, but it is not an event of the expected shape.',
    fix: 'Compare the body with the event catalogue; a field may be missing or have the wrong type.',
  },
  header_mismatch: {
    meaning:
      'The signature is genuine, but X-Service-Event-Id or X-Service-Event-Type (which are not signed) ' +
      'disagree with the signed body.',
    fix: 'Something changed those headers on the way; capture them as received, or leave them out.',
  },
  invalid_secret: {
    meaning: 'The signing secret given is unusable.',
    fix: 'Give the secret shown when the endpoint was created or last rotated.',
  },
  invalid_options: {
    meaning: 'An option is out of range.',
    fix: 'See svc-webhooks verify --help.',
  },
};
