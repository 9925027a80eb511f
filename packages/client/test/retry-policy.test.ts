import { isRepeatable } from '@svc-kit/client';
import { type OperationId, operationList } from '@svc-kit/contract';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoff, MAX_BACKOFF_MS } from '../src/core/retry-policy.js';

// The documented list (README, open-choices page): operations retried after a 5xx, a lost connection or
// a timeout. Everything else is retried only after a 429.
const REPEATABLE: OperationId[] = [
  'listWebhooks',
  'setWebhookStatus',
  'deleteWebhook',
  'listWebhookDeliveries',
  'listContacts',
  'updateContact',
  'removeContact',
  'approveContact',
  'rejectContact',
  'notifyAcceptance',
  'listContactTools',
  'blockContact',
  'setPetname',
  'setTrust',
  'listIntegrations',
  'getExposure',
  'deleteIntegration',
];

describe('which operations are repeated after an unknown outcome', () => {
  it('matches the documented list', () => {
    const repeatable = operationList.filter(isRepeatable).map((op) => op.operationId);
    expect(repeatable.sort()).toEqual([...REPEATABLE].sort());
  });
});

describe('backoff', () => {
  it('stays within [0, min(initial * 2^n, 8 s, ceiling)) for any settings', () => {
    fc.assert(
      fc.property(
        fc.nat(40),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retries, initial, ceiling, r) => {
          const delay = backoff(
            retries,
            { maxRetries: 99, initialRetryDelayMs: initial, maxRetryDelayMs: ceiling },
            () => r,
          );
          const cap = Math.min(initial * 2 ** retries, MAX_BACKOFF_MS, ceiling);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(0);
          expect(delay).toBeLessThanOrEqual(cap);
          if (cap >= 1) expect(delay).toBeLessThan(cap);
        },
      ),
    );
  });
});
