import { type ContactPreset, type ErrorCode, permissionsOfPreset } from '@svc-kit/contract';
import type { PeerRefusalCode } from '../../peer/refusal.js';
import type { ContactRow } from '../../store/queries/contacts.js';
import type { ContactEventType } from './record.js';

/**
 * The contact state machine of spec part 3.2, as pure functions: the row before (`null`: no row), an
 * action, and either the row after with the events it raises, or a refusal. No I/O: the feature's service
 * (local operations) and its inbound side (the peer protocol) read the row, call these, and write what
 * they return. A returned row that is the same object as the one given means "nothing changed"; `null`
 * after a row means the row goes.
 */
export type ContactState = ContactRow | null;

export interface Transition<A = undefined> {
  state: ContactState;
  events: ContactEventType[];
  answer: A;
}

export interface Refusal<C extends string> {
  refused: C;
  message: string;
}

export type Outcome<C extends string, A = undefined> = Transition<A> | Refusal<C>;

export function isRefusal<C extends string, A>(outcome: Outcome<C, A>): outcome is Refusal<C> {
  return 'refused' in outcome;
}

export const same = <A>(state: ContactState, answer: A): Transition<A> => ({ state, events: [], answer });
export const moved = <A>(state: ContactState, event: ContactEventType, answer: A): Transition<A> => ({
  state,
  events: [event],
  answer,
});
const refuse = <C extends string>(refused: C, message: string): Refusal<C> => ({ refused, message });

const NOT_WAITING = 'no request from this party is waiting';
const NOT_ACTIVE = 'no active contact with this fingerprint';

// ---- Preconditions of local operations, checked before any rate-limit spending or peer call ----

/** A request may go out unless the identity blocked the party (a policy refusal: 403). */
export function mayRequest(state: ContactState): Refusal<ErrorCode> | undefined {
  if (state?.status === 'blocked') {
    return refuse('forbidden', 'this party is blocked by the identity; unblock it first');
  }
  return undefined;
}

/** Approve and reject answer a request that is waiting. */
export function mayAnswer(state: ContactState): Refusal<ErrorCode> | undefined {
  return state?.status === 'pending_in' ? undefined : refuse('not_found', NOT_WAITING);
}

/** Tools, and telling a contact it was accepted, need an active contact. */
export function mayUseContact(state: ContactState): Refusal<ErrorCode> | undefined {
  return state?.status === 'active' ? undefined : refuse('not_found', NOT_ACTIVE);
}

// ---- Local transitions (the identity's own operations) ----

/**
 * The party answered our request: `active` when it had asked us too, `pending_out` otherwise. `fresh` is
 * the row a first request creates (the caller builds it from the verified card).
 */
export function requested(
  state: ContactState,
  action: { fresh: ContactRow; peerStatus: 'active' | 'pending'; now: number },
): Transition {
  const status = action.peerStatus === 'active' ? 'active' : 'pending_out';
  const { fresh, now } = action;
  const next: ContactRow = {
    ...(state ?? fresh),
    display_name: fresh.display_name,
    endpoint: fresh.endpoint,
    public_key: fresh.public_key,
    card: fresh.card,
    card_expires_at: fresh.card_expires_at,
    status,
    last_seen_at: now,
    updated_at: now,
  };
  if (state?.status === status) return same(next, undefined);
  return moved(next, status === 'active' ? 'contact.approved' : 'contact.requested', undefined);
}

/** Approve: the waiting request becomes an active contact with the preset's switches. */
export function approve(
  state: ContactState,
  action: { preset: ContactPreset; notified: boolean; now: number },
): Outcome<ErrorCode> {
  const refusal = mayAnswer(state);
  if (refusal || !state) return refusal ?? refuse('not_found', NOT_WAITING);
  const { preset, notified, now } = action;
  return moved(
    {
      ...state,
      status: 'active',
      preset,
      permissions: permissionsOfPreset(preset),
      acceptance_unheard_since: notified ? null : now,
      last_seen_at: notified ? now : state.last_seen_at,
      updated_at: now,
    },
    'contact.approved',
    undefined,
  );
}

/** Reject: the party is pinned as declined, so that it cannot ask again. */
export function reject(state: ContactState, action: { now: number }): Outcome<ErrorCode> {
  const refusal = mayAnswer(state);
  if (refusal || !state) return refusal ?? refuse('not_found', NOT_WAITING);
  return moved(
    { ...state, status: 'blocked', blocked_kind: 'declined', updated_at: action.now },
    'contact.rejected',
    undefined,
  );
}

/** Telling an active contact again that it was accepted: only the bookkeeping of being heard changes. */
export function acceptanceTold(
  state: ContactState,
  action: { notified: boolean; now: number },
): Outcome<ErrorCode> {
  const refusal = mayUseContact(state);
  if (refusal || !state) return refusal ?? refuse('not_found', NOT_ACTIVE);
  const { notified, now } = action;
  return same(
    {
      ...state,
      acceptance_unheard_since: notified ? null : (state.acceptance_unheard_since ?? now),
      last_seen_at: notified ? now : state.last_seen_at,
    },
    undefined,
  );
}

/** Remove: the row goes, whatever its state (the other side is told separately). */
export function remove(state: ContactState): Transition {
  return state ? moved(null, 'contact.removed', undefined) : same(null, undefined);
}

/** Block is silent: nothing is sent. A contact is pinned as `contact`, anyone else as `declined`. */
export function block(state: ContactState, action: { now: number }): Outcome<ErrorCode> {
  if (!state) return refuse('not_found', 'no such contact');
  if (state.status === 'blocked') return same(state, undefined);
  const kind = state.status === 'active' ? 'contact' : 'declined';
  return moved(
    { ...state, status: 'blocked', blocked_kind: kind, updated_at: action.now },
    'contact.blocked',
    undefined,
  );
}

/** Unblock: a blocked contact is active again; a blocked stranger is forgotten (the row goes). */
export function unblock(
  state: ContactState,
  action: { now: number },
): Outcome<ErrorCode, 'active' | 'forgotten'> {
  if (state?.status !== 'blocked') return refuse('not_found', 'this contact is not blocked');
  if (state.blocked_kind === 'contact') {
    return moved(
      { ...state, status: 'active', blocked_kind: null, updated_at: action.now },
      'contact.unblocked',
      'active',
    );
  }
  return moved(null, 'contact.unblocked', 'forgotten');
}

// ---- Inbound transitions (what a party's peer call does to our row for it) ----

/**
 * A request from the party: a stranger's waits (`pending_in`); one we had asked is our answer, and both
 * sides are contacts. A silent block stays silent (the party sees what it would see if nothing happened);
 * a declined party is told to ask no more.
 */
export function requestReceived(
  state: ContactState,
  action: { fresh: ContactRow; note: string | undefined; now: number },
): Outcome<PeerRefusalCode, { status: 'pending' | 'active' }> {
  const { fresh, note, now } = action;
  if (!state) {
    const row: ContactRow = { ...fresh, status: 'pending_in', request_note: note ?? null };
    return moved(row, 'contact.requested', { status: 'pending' });
  }
  if (state.status === 'blocked') {
    if (state.blocked_kind === 'declined') return refuse('declined', DECLINED);
    return same(state, { status: 'pending' });
  }
  if (state.status === 'pending_out') {
    const row: ContactRow = {
      ...state,
      status: 'active',
      acceptance_unheard_since: null,
      last_seen_at: now,
      updated_at: now,
    };
    return moved(row, 'contact.approved', { status: 'active' });
  }
  const waiting = state.status === 'pending_in';
  const row = { ...state, request_note: waiting ? (note ?? state.request_note) : state.request_note };
  return same({ ...row, last_seen_at: now }, { status: waiting ? 'pending' : 'active' });
}

const DECLINED = 'this identity declined an earlier request from you; ask no more';

/** The party approved our request (or tells us again that it did). */
export function acceptReceived(
  state: ContactState,
  action: { now: number },
): Outcome<PeerRefusalCode, { accepted: true }> {
  const { now } = action;
  if (state?.status === 'blocked') return same(state, { accepted: true });
  if (state?.status === 'pending_out') {
    const row: ContactRow = { ...state, status: 'active', last_seen_at: now, updated_at: now };
    return moved(row, 'contact.approved', { accepted: true });
  }
  if (state?.status === 'active') return same({ ...state, last_seen_at: now }, { accepted: true });
  return refuse('not_requested', 'this identity has no request waiting for your answer');
}

/** The party rejected our request: it is forgotten here. */
export function rejectReceived(state: ContactState): Transition<{ ok: true }> {
  if (state?.status === 'pending_out') return moved(null, 'contact.rejected', { ok: true });
  return same(state, { ok: true });
}

/**
 * The party removed us: the pin goes on both sides, a silent block of a former contact included (they
 * ended the contact, so there is nothing left to block). A declined request stays: it is what keeps them
 * from knocking again.
 */
export function removeReceived(state: ContactState): Transition<{ ok: true }> {
  if (state && !(state.status === 'blocked' && state.blocked_kind === 'declined')) {
    return moved(null, 'contact.removed', { ok: true });
  }
  return same(state, { ok: true });
}

/** Only a contact may use the identity's tools; a silently blocked one is not told it is blocked. */
export function peerMayUseTools(state: ContactState): Refusal<PeerRefusalCode> | undefined {
  const silentlyBlocked = state?.status === 'blocked' && state.blocked_kind === 'contact';
  if (state && (state.status === 'active' || silentlyBlocked)) return undefined;
  return refuse('not_a_contact', 'only a contact of this identity may use its tools');
}
