import { WebhookVerificationError } from '../errors';
import type { WebhookEvent } from '../events/types';

export type VerifyResult = { ok: true; event: WebhookEvent } | { ok: false; error: WebhookVerificationError };

/**
 * Every step already throws typed errors; this is the last guard that keeps the promise of the `safe*`
 * forms (never throw, never return an untyped error) even if a step is ever wrong.
 */
export function toVerificationError(error: unknown): WebhookVerificationError {
  if (error instanceof WebhookVerificationError) return error;
  return new WebhookVerificationError(
    'invalid_payload',
    'The delivery could not be verified because of an unexpected internal error.',
    { cause: error },
  );
}

export function failure(error: unknown): VerifyResult {
  return { ok: false, error: toVerificationError(error) };
}
