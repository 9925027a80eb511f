import { WebhookVerificationError } from '@svc-kit/webhooks';

/**
 * Deliveries carry ids and metadata only, so a few kilobytes is typical; 1 MiB leaves room while keeping a
 * hostile sender from making the receiver buffer without bound.
 */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Options every adapter shares. */
export interface BodyLimitOptions {
  /** Largest body accepted, in bytes; a larger one is answered with 413 before it is buffered. Default 1 MiB. */
  readonly maxBodyBytes?: number;
}

/** Checks the option once, when the adapter is created, so a set-up mistake fails at start-up. */
export function resolveMaxBodyBytes(options: BodyLimitOptions): number {
  const value = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new WebhookVerificationError(
      'invalid_options',
      `maxBodyBytes must be a positive whole number of bytes (got ${String(value)}).`,
    );
  }
  return value;
}

/**
 * The `Content-Length` a client announced, or `undefined` when it sent none (chunked) or an unusable one;
 * the actual byte count is always checked as well, so this is only a way to refuse early.
 */
export function declaredLength(header: string | null | undefined): number | undefined {
  if (header === null || header === undefined || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}
