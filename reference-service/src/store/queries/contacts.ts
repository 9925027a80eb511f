import { type Contact, type ContactStatus, contactSchema } from '@svc-kit/contract';
import type { Queryable } from '../db.js';

/** Members of the record made from the card when answered (features/contacts/record.ts), not stored. */
const FROM_THE_CARD = ['leaf', 'root_cert', 'address_claim'] as const satisfies readonly (keyof Contact)[];

/** What a contact answer shows: the contract's record, as it is stored. */
export type ContactListRow = Omit<Contact, (typeof FROM_THE_CARD)[number]>;

/** A row: what an answer shows, beside its owner, the card (up to 16 KiB), the key and the bookkeeping. */
export type ContactRow = ContactListRow & {
  identity_id: string;
  workspace_id: string;
  public_key: string;
  card: string;
  card_expires_at: number;
  blocked_kind: 'contact' | 'declined' | null;
  request_note: string | null;
  updated_at: number;
};

/** The record's columns, taken from the schema once, when this module loads: the texts are fixed. */
const LIST_COLUMNS = Object.keys(contactSchema.shape).filter(
  (column) => !(FROM_THE_CARD as readonly string[]).includes(column),
) as (keyof ContactListRow)[];

/** A contact row's columns, as every read and write of a whole row names them (never `*`). */
export const CONTACT_COLUMNS: readonly (keyof ContactRow)[] = [
  'identity_id',
  ...LIST_COLUMNS,
  'workspace_id',
  'public_key',
  'card',
  'card_expires_at',
  'blocked_kind',
  'request_note',
  'updated_at',
];

const SAVE_CONTACT = `INSERT INTO contacts (${CONTACT_COLUMNS.join(', ')})
  VALUES (${CONTACT_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})
  ON CONFLICT (identity_id, fingerprint) DO UPDATE
  SET ${CONTACT_COLUMNS.filter((column) => column !== 'identity_id' && column !== 'fingerprint')
    .map((column) => `${column} = EXCLUDED.${column}`)
    .join(', ')}`;

/** Writes the whole row: read it (for update) inside a transaction, change it, save it. */
export async function saveContact(db: Queryable, row: ContactRow): Promise<void> {
  await db.query(
    SAVE_CONTACT,
    CONTACT_COLUMNS.map((column) => row[column]),
  );
}

const GET_CONTACT = `SELECT ${CONTACT_COLUMNS.join(', ')} FROM contacts WHERE identity_id = $1 AND fingerprint = $2`;
const GET_CONTACT_FOR_UPDATE = `${GET_CONTACT} FOR UPDATE`;

/** The row, locked until the end of the transaction when `forUpdate` (PostgreSQL; PGlite is serial). */
export async function getContact(
  db: Queryable,
  identityId: string,
  fingerprint: string,
  forUpdate = false,
): Promise<ContactRow | undefined> {
  const rows = await db.query<ContactRow>(forUpdate ? GET_CONTACT_FOR_UPDATE : GET_CONTACT, [
    identityId,
    fingerprint,
  ]);
  return rows[0];
}

/**
 * The identity with its contacts joined: one statement tells a missing identity (no row) from one with no
 * contacts (one row of nulls).
 */
const CONTACTS_OF_SLUG = `SELECT ${LIST_COLUMNS.map((column) => `c.${column}`).join(', ')}
    FROM identities i
    LEFT JOIN contacts c ON c.identity_id = i.id AND ($3::text IS NULL OR c.status = $3)
   WHERE i.workspace_id = $1 AND i.slug = $2
   ORDER BY c.created_at, c.fingerprint`;

/**
 * The contacts of the workspace's identity `slug`, optionally of one status, oldest first; `undefined` when
 * the workspace has no such identity.
 */
export async function listContactsOfSlug(
  db: Queryable,
  workspaceId: string,
  slug: string,
  status: ContactStatus | undefined,
): Promise<ContactListRow[] | undefined> {
  const rows = await db.query<ContactListRow | { [K in keyof ContactListRow]: null }>(CONTACTS_OF_SLUG, [
    workspaceId,
    slug,
    status ?? null,
  ]);
  if (rows.length === 0) return undefined;
  return rows.filter((row): row is ContactListRow => row.fingerprint !== null);
}

export async function deleteContact(
  db: Queryable,
  identityId: string,
  fingerprint: string,
): Promise<boolean> {
  const rows = await db.query<{ fingerprint: string }>(
    'DELETE FROM contacts WHERE identity_id = $1 AND fingerprint = $2 RETURNING fingerprint',
    [identityId, fingerprint],
  );
  return rows.length === 1;
}

/**
 * The identity's unanswered requests (`pending_in`), counted up to `cap`, with the identity's row locked
 * against other counts until the transaction ends: two requests arriving at once on PostgreSQL cannot both
 * take the last place. `FOR NO KEY UPDATE` leaves the contacts' own foreign-key locks free.
 */
export async function countPendingRequestsLocked(
  db: Queryable,
  identityId: string,
  cap: number,
): Promise<number> {
  await db.query('SELECT 1 FROM identities WHERE id = $1 FOR NO KEY UPDATE', [identityId]);
  const rows = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM contacts WHERE identity_id = $1 AND status = 'pending_in' LIMIT $2
     ) AS waiting`,
    [identityId, cap],
  );
  return rows[0]?.n ?? 0;
}
