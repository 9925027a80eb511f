import { hash } from 'node:crypto';
import { idempotencyArgumentsText } from '@svc-kit/contract';

/**
 * What "the same arguments" means: the contract's canonical text (the mock compares the same text),
 * stored as its SHA-256 to keep the row small.
 */
export function requestFingerprint(args: Parameters<typeof idempotencyArgumentsText>[0]): string {
  return hash('sha256', idempotencyArgumentsText(args));
}
