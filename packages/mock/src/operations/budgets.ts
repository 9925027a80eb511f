import {
  FILTERED_LOG_READS,
  isStrangerCall,
  limitRefusal,
  type OutboundBucket,
  outboundRefusal,
  PER_CONTACT_LIMIT,
  PER_IDENTITY_LIMIT,
  TO_STRANGERS_LIMIT,
  takeOutboundToken,
} from '@svc-kit/contract';
import { Refusal } from '../http/refusal.js';
import type { SandboxStore } from '../state/model.js';

/**
 * Spends one token of each outbound budget a call to a contact's peer needs, all or none, as the service
 * does (spec part 8, the contract's limits): per contact, to strangers when the party is not an active
 * contact (`status` before the call), and the identity's aggregate. An empty bucket is a 429.
 */
export function spendOutbound(
  store: SandboxStore,
  slug: string,
  fingerprint: string,
  status: string | undefined,
  now: number,
): void {
  const plan = [{ name: `contact:${slug}:${fingerprint}`, limit: PER_CONTACT_LIMIT }];
  if (isStrangerCall(status)) plan.push({ name: `stranger:${slug}`, limit: TO_STRANGERS_LIMIT });
  plan.push({ name: `identity:${slug}`, limit: PER_IDENTITY_LIMIT });
  const taken: [string, OutboundBucket][] = [];
  for (const { name, limit } of plan) {
    const result = takeOutboundToken(store.budgets.get(name), limit, now);
    if (!result.ok) {
      const refusal = outboundRefusal(limit, result.waitMs);
      throw new Refusal('rate_limited', refusal.message, refusal.retryAfter);
    }
    taken.push([name, result.next]);
  }
  for (const [name, bucket] of taken) store.budgets.set(name, bucket);
}

/**
 * Spends one of the workspace's reads through the delivery log's filter window (the contract's budget),
 * as the service does, before the read. An empty bucket is a 429 that spends nothing.
 */
export function spendFilteredRead(store: SandboxStore, now: number): void {
  const name = 'filtered-log-reads';
  const result = takeOutboundToken(store.budgets.get(name), FILTERED_LOG_READS, now);
  if (!result.ok) {
    const refusal = limitRefusal(FILTERED_LOG_READS, result.waitMs);
    throw new Refusal('rate_limited', refusal.message, refusal.retryAfter);
  }
  store.budgets.set(name, result.next);
}
