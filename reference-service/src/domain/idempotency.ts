import { hash } from 'node:crypto';
import { idempotencyArgumentsText } from '@svc-kit/contract';

/** "The same arguments": the contract's canonical text (as the mock compares), stored as its SHA-256. */
export function requestFingerprint(args: Parameters<typeof idempotencyArgumentsText>[0]): string {
  return hash('sha256', idempotencyArgumentsText(args));
}
