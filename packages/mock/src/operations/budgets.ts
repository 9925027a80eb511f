import {
  ENDPOINTS_CREATED,
  EXPOSURE_WRITES,
  FILTERED_LOG_READS,
  isStrangerCall,
  limitRefusal,
  type OutboundBucket,
  type OutboundLimit,
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

/** Spends one token of a budget of the workspace; an empty bucket is a 429 that spends nothing. */
function spendWorkspaceBudget(store: SandboxStore, name: string, limit: OutboundLimit, now: number): void {
  const result = takeOutboundToken(store.budgets.get(name), limit, now);
  if (!result.ok) {
    const refusal = limitRefusal(limit, result.waitMs);
    throw new Refusal('rate_limited', refusal.message, refusal.retryAfter);
  }
  store.budgets.set(name, result.next);
}

/**
 * Spends one of the workspace's reads through the delivery log's filter window (the contract's budget),
 * as the service does, before the read.
 */
export function spendFilteredRead(store: SandboxStore, now: number): void {
  spendWorkspaceBudget(store, 'filtered-log-reads', FILTERED_LOG_READS, now);
}

/** Spends one of the workspace's new endpoints (the contract's budget), after the caps, as the service does. */
export function spendEndpointCreation(store: SandboxStore, now: number): void {
  spendWorkspaceBudget(store, 'endpoints-created', ENDPOINTS_CREATED, now);
}

/** Spends one of the workspace's exposure writes (the contract's budget), once the entries are valid. */
export function spendExposureWrite(store: SandboxStore, now: number): void {
  spendWorkspaceBudget(store, 'exposure-writes', EXPOSURE_WRITES, now);
}
