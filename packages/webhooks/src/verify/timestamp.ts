import { WebhookVerificationError } from '../errors';
import { currentSecond, type ResolvedVerifyOptions } from '../options/verify-options';

/**
 * Refuses a `t` more than the tolerance away from now, either way. Runs after the signature check, so a
 * timestamp error always concerns a genuine delivery: a replay, a delay, or a clock that is off.
 */
export function checkTimestamp(timestamp: string, options: ResolvedVerifyOptions): void {
  const now = currentSecond(options.now);
  const signedAt = Number(timestamp);
  const age = now - signedAt;
  const tolerance = options.toleranceSeconds;
  if (age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `The signature is valid but was made ${age} s ago, more than the ${tolerance} s tolerance: a replayed ` +
        `or long-delayed delivery, or this server's clock is ahead. Check NTP; do not raise the tolerance to hide it.`,
    );
  }
  if (-age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_too_new',
      `The signature is valid but is dated ${-age} s in the future, more than the ${tolerance} s tolerance: ` +
        `this server's clock is probably behind (or the injected now() returns seconds instead of milliseconds).`,
    );
  }
}
