/**
 * Why a delivery was refused. Stable strings: integrators switch on them, so a
 * value is never renamed or removed within a major version.
 */
export type WebhookErrorReason =
  /** The `X-Service-Signature` header is absent or empty. */
  | 'missing_header'
  /** The signature header is present but is not `t=<digits>,v1=<hex>[,v1=<hex>]`. */
  | 'malformed_header'
  /** `t` is further in the past than the tolerance allows (replay, or a slow clock). */
  | 'timestamp_too_old'
  /** `t` is further in the future than the tolerance allows (a fast clock). */
  | 'timestamp_too_new'
  /** No `v1` value matches any configured secret over the body as received. */
  | 'no_matching_signature'
  /** The body handed to the SDK was already parsed (an object), so its exact bytes are lost. */
  | 'body_was_parsed'
  /** The signature verified, but the body is not JSON. */
  | 'invalid_json'
  /** The signature verified and the body is JSON, but it is not an event envelope. */
  | 'invalid_payload'
  /** `X-Service-Event-Id` or `X-Service-Event-Type` disagree with the signed body. */
  | 'header_mismatch'
  /** The configured secret is unusable (empty, or not a string). A set-up mistake, not an attack. */
  | 'invalid_secret'
  /** An option is out of range (for example a tolerance of 0 or less). A set-up mistake. */
  | 'invalid_options';

/** The troubleshooting guide: one entry per reason (what you see, likely causes, the fix). */
export const TROUBLESHOOTING_URL =
  'https://github.com/svc-kit/svc-kit/blob/main/docs/guide/troubleshooting.md';

/** The entry of the troubleshooting guide for a reason: its heading's anchor is the reason, hyphenated. */
export function troubleshootingUrl(reason: WebhookErrorReason): string {
  return `${TROUBLESHOOTING_URL}#${reason.replaceAll('_', '-')}`;
}

/**
 * A registry-wide symbol marks instances, so that `instanceof` and `isWebhookVerificationError` still hold
 * when two copies of the SDK are loaded (the ESM and the CJS build, or the Node and the Web build).
 */
const BRAND = Symbol.for('@svc-kit/webhooks/WebhookVerificationError');

/** The one error class the SDK throws. Switch on `reason`; the message says how to fix it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookErrorReason;

  constructor(reason: WebhookErrorReason, message: string, options?: { cause?: unknown }) {
    super(`${message} See ${troubleshootingUrl(reason)}`, options);
    this.reason = reason;
    Object.defineProperty(this, BRAND, { value: true });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    try {
      return (value as Record<symbol, unknown>)[BRAND] === true;
    } catch {
      // A hostile proxy must not turn a type check into a crash.
      return false;
    }
  }
}

export function isWebhookVerificationError(value: unknown): value is WebhookVerificationError {
  return value instanceof WebhookVerificationError;
}
