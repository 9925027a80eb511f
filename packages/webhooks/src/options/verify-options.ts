import { WebhookVerificationError } from '../errors';
import { resolveSecrets } from './secrets';

/** The tolerance the service recommends: a delivery may be up to 300 s early or late. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface VerifyOptions {
  /** The endpoint signing secret, or several while a rotation is in progress (any may match). */
  secret: string | readonly string[];
  /**
   * How far `t` may be from the current time, in seconds, in both directions. Default 300. Must be a
   * finite number greater than 0: a 0 is refused rather than read as "no check".
   */
  toleranceSeconds?: number | undefined;
  /** The current time in milliseconds since the epoch, like `Date.now` (inject a clock in tests). */
  now?: (() => number) | undefined;
}

export interface ResolvedVerifyOptions {
  readonly secrets: readonly string[];
  readonly toleranceSeconds: number;
  readonly now: () => number;
}

function invalidOptions(detail: string, cause?: unknown): WebhookVerificationError {
  return new WebhookVerificationError('invalid_options', detail, cause === undefined ? undefined : { cause });
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value === null) return 'null';
  return typeof value;
}

export function resolveTolerance(value: unknown): number {
  if (value === undefined) return DEFAULT_TOLERANCE_SECONDS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalidOptions(
      `options.toleranceSeconds must be a finite number of seconds greater than 0 (got ${describe(value)}). ` +
        `Leave it out for the recommended ${DEFAULT_TOLERANCE_SECONDS}; 0 does not switch the check off.`,
    );
  }
  return value;
}

/** Validates everything up front, so a set-up mistake is reported as such and never as a bad delivery. */
export function resolveVerifyOptions(options: unknown): ResolvedVerifyOptions {
  if (typeof options !== 'object' || options === null) {
    throw invalidOptions(
      `The options must be an object with at least { secret } (got ${describe(options)}).`,
    );
  }
  try {
    const { secret, toleranceSeconds, now } = options as Record<string, unknown>;
    const secrets = resolveSecrets(secret);
    const tolerance = resolveTolerance(toleranceSeconds);
    if (now !== undefined && typeof now !== 'function') {
      throw invalidOptions(`options.now must be a function returning milliseconds (got ${describe(now)}).`);
    }
    return { secrets, toleranceSeconds: tolerance, now: (now as (() => number) | undefined) ?? Date.now };
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw error;
    // Only a hostile object (throwing getter, proxy) gets here.
    throw invalidOptions('The options could not be read.', error);
  }
}

/** The current Unix second from the configured clock. */
export function currentSecond(now: () => number): number {
  let ms: unknown;
  try {
    ms = now();
  } catch (error) {
    throw invalidOptions('options.now threw.', error);
  }
  if (typeof ms !== 'number' || !Number.isFinite(ms)) {
    throw invalidOptions(`options.now must return milliseconds since the epoch (got ${describe(ms)}).`);
  }
  return Math.floor(ms / 1000);
}
