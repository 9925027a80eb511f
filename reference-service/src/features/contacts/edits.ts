import { type ContactPreset, permissionsOfPreset } from '@svc-kit/contract';
import type { ContactRow } from '../../store/queries/contacts.js';
import { moved, same, type Transition } from './rules.js';

/*
 * Edits of a contact that leave its place in the state machine (rules.ts) alone: its switches, the
 * identity's own labels, its card. Pure, like the rules: the row before, the row after and its events.
 */

/** A preset replaces the switches; switches given one by one then replace them (a set: no repeats). */
export function update(
  state: ContactRow,
  action: { preset?: ContactPreset | undefined; permissions?: string[] | undefined; now: number },
): Transition {
  let { preset, permissions } = state;
  if (action.preset !== undefined) {
    preset = action.preset;
    permissions = permissionsOfPreset(action.preset);
  }
  if (action.permissions !== undefined) permissions = [...new Set(action.permissions)];
  if (preset === state.preset && permissions.join('\n') === state.permissions.join('\n')) {
    return same(state, undefined);
  }
  return moved({ ...state, preset, permissions, updated_at: action.now }, 'contact.updated', undefined);
}

/** The identity's own labels of a contact: a petname, a trust flag. */
export function label(
  state: ContactRow,
  action: { petname?: string; trust?: string; now: number },
): Transition {
  const petname = action.petname ?? state.petname;
  const trust = action.trust ?? state.trust_flag;
  if (petname === state.petname && trust === state.trust_flag) return same(state, undefined);
  return moved(
    { ...state, petname, trust_flag: trust, updated_at: action.now },
    'contact.updated',
    undefined,
  );
}

/** A card fetched again: `updated` when name or endpoint changed, `renewed` when only its expiry did. */
export function refreshed(
  state: ContactRow,
  card: Pick<ContactRow, 'display_name' | 'endpoint' | 'card' | 'card_expires_at'>,
  now: number,
): Transition<'updated' | 'renewed' | 'unchanged'> {
  const updated = card.display_name !== state.display_name || card.endpoint !== state.endpoint;
  const renewed = !updated && card.card_expires_at !== state.card_expires_at;
  const seen = { ...state, last_seen_at: now };
  if (!updated && !renewed) return same(seen, 'unchanged');
  const next = { ...seen, ...card, updated_at: now };
  return updated ? moved(next, 'contact.updated', 'updated') : same(next, 'renewed');
}
