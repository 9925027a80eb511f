import type { ResponseOf } from '@svc-kit/contract';
import { RateLimitedError, ServiceError } from '../../domain/errors.js';
import { type VerifiedCard, verifyCard } from '../../peer/card.js';
import { refuseOverBacklog } from '../../store/queries/backlog.js';
import { getContact } from '../../store/queries/contacts.js';
import { refreshed } from './edits.js';
import { callParty, endpointRefusal, type PartyCall, signer, unreachable, writeHeard } from './outbound.js';
import { newContactRow } from './record.js';
import { check, contactOf } from './rows.js';
import * as rules from './rules.js';

// The contact operations that are mostly a call to the party: a request, a card refresh, its tools.

export async function requestContact(
  call: PartyCall,
  request: { card: string; note?: string | undefined },
): Promise<{ status: 'active' | 'pending'; card: VerifiedCard }> {
  const { deps, db, identity, now } = call;
  const card = verifyCard(request.card, now);
  if (typeof card === 'string') throw new ServiceError('invalid_request', `invalid card: ${card}`);
  const refused = await endpointRefusal(deps, card.endpoint);
  if (refused) throw new ServiceError('invalid_request', `invalid card: its endpoint is refused: ${refused}`);
  const me = await signer(deps, db, identity, now);
  if (card.fingerprint === me.fingerprint) {
    throw new ServiceError('invalid_request', 'this is the identity’s own card');
  }
  const existing = (await getContact(db, identity.id, card.fingerprint)) ?? null;
  check(rules.mayRequest(existing));
  // Before the party is told, as in service.ts.
  await refuseOverBacklog(db, [identity.workspace_id], now);
  const payload = request.note === undefined ? {} : { note: request.note };
  const party = { ...card, status: existing?.status };
  const outcome = await callParty(call, party, 'request', payload);
  if (outcome.kind === 'unreachable') throw unreachable(card, outcome.reason);
  if (outcome.kind === 'refused') {
    // The other side's policy refused (a declined request, most often): 403, as a local block is.
    throw refusedByPeer(
      outcome,
      outcome.code === 'declined'
        ? 'this party declined an earlier request from the identity; it cannot be asked again'
        : `the party’s service refused the request (${outcome.code}: ${outcome.message})`,
    );
  }
  const peerStatus = outcome.body.status === 'active' ? 'active' : 'pending';
  const owner = { identityId: identity.id, workspaceId: identity.workspace_id };
  const fresh = newContactRow(owner, card, 'pending_out', now);
  await writeHeard(call, card.fingerprint, (state) => rules.requested(state, { fresh, peerStatus, now }));
  return { status: outcome.body.status, card };
}

/** Fetches the party's card again; a card that cannot be taken is an answer, not an error. */
export async function refreshContact(
  call: PartyCall,
  fingerprint: string,
): Promise<ResponseOf<'refreshContact'>> {
  const { deps, db, identity, now } = call;
  const row = await contactOf(call, fingerprint);
  await refuseOverBacklog(db, [identity.workspace_id], now);
  const outcome = await callParty(call, row, 'card', {});
  if (outcome.kind === 'unreachable') return { outcome: 'unreachable', why: outcome.reason };
  if (outcome.kind === 'refused') return { outcome: 'refused', why: `${outcome.code}: ${outcome.message}` };
  const card = verifyCard(outcome.body.card, now);
  if (typeof card === 'string') return { outcome: 'refused', why: `the card sent back is invalid: ${card}` };
  if (card.fingerprint !== row.fingerprint) {
    return { outcome: 'refused', why: 'the card sent back is another identity’s' };
  }
  const endpointRefused = await endpointRefusal(deps, card.endpoint);
  if (endpointRefused) return { outcome: 'refused', why: `the new endpoint is refused: ${endpointRefused}` };
  const taken = {
    display_name: card.display_name,
    endpoint: card.endpoint,
    card: card.text,
    card_expires_at: card.expires_at,
  };
  // Decided on the row read before the call, as the answer describes what the call found.
  const answer = refreshed(row, taken, now).answer;
  await writeHeard(call, row.fingerprint, (state) =>
    state ? refreshed(state, taken, now) : rules.same(state, answer),
  );
  return { outcome: answer };
}

/** A peer's refusal as this service answers it: its 429 stays a 429 (spec part 7), anything else is 403. */
function refusedByPeer(
  outcome: { code: string; retryAfter?: number | undefined },
  message: string,
): ServiceError {
  if (outcome.retryAfter === undefined) return new ServiceError('forbidden', message);
  return new RateLimitedError(
    outcome.retryAfter,
    `the party’s service is limiting calls (${outcome.code}); retry after ${outcome.retryAfter} seconds`,
  );
}

/** A call to an active contact's tools (`tools/list` or `tools/call`), spent against its budgets. */
export async function callTools<V extends 'tools/list' | 'tools/call'>(
  call: PartyCall,
  fingerprint: string,
  verb: V,
  payload: Record<string, unknown>,
) {
  const row = await contactOf(call, fingerprint);
  check(rules.mayUseContact(row));
  const outcome = await callParty(call, row, verb, payload);
  if (outcome.kind === 'unreachable') throw unreachable(row, outcome.reason);
  if (outcome.kind === 'refused') {
    throw refusedByPeer(outcome, `the contact’s service refused (${outcome.code}: ${outcome.message})`);
  }
  return outcome.body;
}
