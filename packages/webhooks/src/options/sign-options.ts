import { WebhookVerificationError } from '../errors';
import { resolveSecrets } from './secrets';

export interface SignOptions {
  /** The signing secret; two secrets give two `v1` values, in the order given (new first during a rotation). */
  secret: string | readonly string[];
  /** The `t` to sign with, in Unix seconds. Default: now. */
  timestamp?: number | undefined;
}

export interface ResolvedSignOptions {
  readonly secrets: readonly string[];
  readonly timestamp: string;
}

/** `t` is at most 15 digits, the bound the parser enforces. */
const MAX_TIMESTAMP = 999_999_999_999_999;

export function resolveSignOptions(options: unknown): ResolvedSignOptions {
  if (typeof options !== 'object' || options === null) {
    throw new WebhookVerificationError(
      'invalid_options',
      'The sign options must be an object with { secret }.',
    );
  }
  const { secret, timestamp } = options as Record<string, unknown>;
  const secrets = resolveSecrets(secret);
  if (timestamp === undefined) return { secrets, timestamp: String(Math.floor(Date.now() / 1000)) };
  if (
    typeof timestamp !== 'number' ||
    !Number.isInteger(timestamp) ||
    timestamp < 0 ||
    timestamp > MAX_TIMESTAMP
  ) {
    throw new WebhookVerificationError(
      'invalid_options',
      `options.timestamp must be a whole, non-negative number of Unix seconds (got ${String(timestamp)}); ` +
        'milliseconds are a common mistake: divide Date.now() by 1000.',
    );
  }
  return { secrets, timestamp: String(timestamp) };
}

export function formatSignatureHeader(timestamp: string, hexSignatures: readonly string[]): string {
  let header = `t=${timestamp}`;
  for (const hex of hexSignatures) header += `,v1=${hex}`;
  return header;
}
