import { createHash } from 'node:crypto';
import { idempotencyArgumentsText } from '@svc-kit/contract';

export { IDEMPOTENCY_WINDOW_MS, MAX_IDEMPOTENCY_KEY_LENGTH } from '@svc-kit/contract';

/**
 * What "the same arguments" means: the contract's canonical text (the mock compares the same text),
 * stored as its SHA-256 to keep the row small.
 */
export function requestFingerprint(args: {
  operationId: string;
  pathParams: unknown;
  query: unknown;
  body: unknown;
}): string {
  const text = idempotencyArgumentsText({
    operationId: args.operationId,
    params: args.pathParams,
    query: args.query,
    body: args.body,
  });
  return createHash('sha256').update(text).digest('hex');
}
