import {
  type ErrorCode,
  isStrangerCall,
  type OutboundLimit,
  outboundRefusal,
  PER_CONTACT_LIMIT,
  PER_IDENTITY_LIMIT,
  TO_STRANGERS_LIMIT,
} from '@svc-kit/contract';
import type { ServiceContext } from '../../context.js';
import { RateLimitedError, ServiceError } from '../../domain/errors.js';
import { localTargetHint } from '../../domain/local-targets.js';
import { checkWebhookUrl } from '../../domain/url-policy.js';
import { callPeer, type PeerOutcome, type PeerTarget } from '../../peer/client.js';
import { type Signer, signerFor } from '../../peer/own-identity.js';
import type { PeerVerb } from '../../peer/protocol.js';
import type { PeerSettings } from '../../peer/settings.js';
import type { Db, Queryable } from '../../store/db.js';
import { takeToken } from '../../store/queries/rate-limits.js';
import type { Identity } from '../shared/identity.js';
import { applyLocked, type ContactCall } from './rows.js';
import type { ContactState, Outcome } from './rules.js';

/** What the contacts feature needs from the instance to reach peers. */
export type ContactsDeps = Pick<ServiceContext, 'secretBox' | 'resolveHost' | 'publicAddress'> & {
  peer: PeerSettings;
};

/** An operation that calls the party: it is given the pool, as it opens short transactions of its own. */
export interface PartyCall extends ContactCall {
  deps: ContactsDeps;
  db: Db;
}

/**
 * Spends one token of each bucket that applies, all or none (one transaction): per contact, to
 * strangers when the party is not an active contact (the contract's `isStrangerCall`, given the row's
 * status before the call), then the identity aggregate. An empty bucket answers 429.
 */
async function spend(
  db: Db,
  identity: Identity,
  fingerprint: string,
  status: string | undefined,
  now: number,
): Promise<void> {
  const buckets: [string, OutboundLimit][] = [[`contact:${identity.id}:${fingerprint}`, PER_CONTACT_LIMIT]];
  if (isStrangerCall(status)) buckets.push([`stranger:${identity.id}`, TO_STRANGERS_LIMIT]);
  buckets.push([`identity:${identity.id}`, PER_IDENTITY_LIMIT]);
  await db.transaction(async (tx) => {
    for (const [bucket, limit] of buckets) {
      const taken = await takeToken(tx, bucket, limit, now);
      if (!taken.ok) {
        const refusal = outboundRefusal(limit, taken.waitMs);
        throw new RateLimitedError(refusal.retryAfter, refusal.message);
      }
    }
  });
}

// The endpoint in our cards is the configured public URL, never the request's Host (see public-address.ts).
export function signer(
  deps: Pick<ContactsDeps, 'secretBox' | 'publicAddress'>,
  db: Queryable,
  identity: { id: string; slug: string },
  now: number,
): Promise<Signer> {
  return signerFor(db, deps.secretBox, identity, deps.publicAddress.peerEndpoint, now);
}

/**
 * Spends the call's budgets, then calls the party signed as the identity, with no transaction open (a
 * party on this same instance answers through the same database). `status` is the row's before the call.
 */
export async function callParty<V extends PeerVerb>(
  { deps, db, identity, now }: PartyCall,
  party: PeerTarget & { status?: string | undefined },
  verb: V,
  payload: Record<string, unknown>,
): Promise<PeerOutcome<V>> {
  await spend(db, identity, party.fingerprint, party.status, now);
  const from = await signer(deps, db, identity, now);
  return callPeer(from, party, verb, payload, { ...deps.peer, resolveHost: deps.resolveHost, now });
}

/** Writes the outcome of a call the party may have heard, in a short transaction: `admitted` (service.ts). */
export function writeHeard<A>(
  { db, identity, now }: PartyCall,
  fingerprint: string,
  rule: (state: ContactState) => Outcome<ErrorCode, A>,
): Promise<Outcome<ErrorCode, A>> {
  return db.transaction((tx) => applyLocked(tx, identity, fingerprint, now, rule, 'admitted'));
}

/** Why a party's endpoint may not be called (the webhook URL policy), or undefined when it may. */
export async function endpointRefusal(deps: ContactsDeps, endpoint: string): Promise<string | undefined> {
  const verdict = await checkWebhookUrl(endpoint, {
    resolve: deps.resolveHost,
    allowLocalhost: deps.peer.allowLocalhost,
  });
  if (verdict.ok) return undefined;
  return `${verdict.reason}${localTargetHint(endpoint, 'peers', deps.peer.allowLocalhost, deps.peer.reach)}`;
}

export const unreachable = (row: { endpoint: string }, reason: string) =>
  new ServiceError(
    'service_unavailable',
    `the contact’s service at ${row.endpoint} could not be reached (${reason}); nothing was changed`,
  );
