import { type Contact, DEFAULT_PRESET, DEFAULT_TRUST, PRESET_PERMISSIONS } from '@svc-kit/contract';
import type { EventType } from '@svc-kit/webhooks';
import type { VerifiedCard } from '../../peer/card.js';
import type { ContactListRow, ContactRow } from '../../store/queries/contacts.js';

export type ContactEventType = Extract<EventType, `contact.${string}`>;

/** The contact as the API shows it (spec 2.4); the card, key and bookkeeping stay inside. */
export function contactRecord(row: ContactListRow): Contact {
  return {
    fingerprint: row.fingerprint,
    display_name: row.display_name,
    status: row.status,
    preset: row.preset,
    permissions: row.permissions,
    trust_flag: row.trust_flag,
    petname: row.petname,
    last_seen_at: row.last_seen_at,
    created_at: row.created_at,
    endpoint: row.endpoint,
    address_claim: null,
    acceptance_unheard_since: row.acceptance_unheard_since,
  };
}

/** A new row for a party known from its verified card, with the default preset and trust. */
export function newContactRow(
  owner: { identityId: string; workspaceId: string },
  card: VerifiedCard,
  status: ContactRow['status'],
  now: number,
): ContactRow {
  return {
    identity_id: owner.identityId,
    fingerprint: card.fingerprint,
    workspace_id: owner.workspaceId,
    display_name: card.display_name,
    endpoint: card.endpoint,
    public_key: card.public_key,
    card: card.text,
    card_expires_at: card.expires_at,
    status,
    blocked_kind: null,
    preset: DEFAULT_PRESET,
    permissions: [...PRESET_PERMISSIONS[DEFAULT_PRESET]],
    trust_flag: DEFAULT_TRUST,
    petname: '',
    request_note: null,
    last_seen_at: now,
    acceptance_unheard_since: null,
    created_at: now,
    updated_at: now,
  };
}
