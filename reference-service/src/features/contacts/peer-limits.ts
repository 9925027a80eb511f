import type { OutboundLimit } from '@svc-kit/contract';
import {
  limitBucket,
  PEER_CALLS_PER_ADDRESS,
  PEER_CALLS_PER_IDENTITY,
  STRANGER_CALLS_PER_IDENTITY,
} from '../../domain/door-limits.js';
import { limitedAddress } from '../../domain/sign-in-limits.js';
import { spendBudget, spendGuess } from '../../http/budget-guard.js';
import type { Db } from '../../store/db.js';
import { getContact } from '../../store/queries/contacts.js';

// Each spends one token of every bucket, all or none; an empty one is the peer protocol's 429 (peer-routes.ts).

/**
 * Counts a `/peer/v1` call against its client address before anything of it is read: `ip` is the socket's
 * peer, or the client a trusted proxy names (SVC_TRUSTED_PROXIES), never a header on its own.
 */
export async function spendAddressBudget(db: Db, ip: string, now: number): Promise<void> {
  await spendBudget(db, limitBucket('peer-address', limitedAddress(ip)), PEER_CALLS_PER_ADDRESS, now);
}

/**
 * Counts a verified call against the identity it reached: every call spends the identity's budget, and a
 * call from a party the identity has neither accepted nor asked (`active`, `pending_out`) also spends
 * its strangers' budget. Counted only once the signature is proven, so that nobody can spend an
 * identity's budget without a key.
 */
export async function spendIdentityBudget(
  db: Db,
  target: { identity_id: string; fingerprint: string },
  callerFingerprint: string,
  now: number,
): Promise<void> {
  const row = await getContact(db, target.identity_id, callerFingerprint);
  const known = row?.status === 'active' || row?.status === 'pending_out';
  const buckets: [string, OutboundLimit][] = [
    [limitBucket('peer-identity', target.fingerprint), PEER_CALLS_PER_IDENTITY],
  ];
  if (!known) buckets.push([limitBucket('peer-strangers', target.fingerprint), STRANGER_CALLS_PER_IDENTITY]);
  await spendGuess(db, buckets, now);
}
