import type { Contact } from '@svc-kit/contract';
import { ServiceError } from '../../domain/errors.js';
import type { Queryable } from '../../store/db.js';
import {
  type ContactRow,
  deleteContact,
  getContact,
  listContactsOfSlug,
  saveContact,
} from '../../store/queries/contacts.js';
import { type Backlog, insertEvent } from '../../store/queries/events.js';
import type { Identity } from '../shared/identity.js';
import { contactRecord } from './record.js';
import { type ContactState, isRefusal, type Outcome, type Refusal } from './rules.js';

/**
 * The contacts of the identity `slug` as the API shows them, found with it in one statement (a list costs
 * one round trip).
 */
export async function contactsOf(
  db: Queryable,
  workspaceId: string,
  slug: string,
  status: ContactRow['status'] | undefined,
): Promise<Contact[]> {
  const rows = await listContactsOfSlug(db, workspaceId, slug, status);
  if (!rows) throw new ServiceError('not_found', 'no such identity');
  return rows.map(contactRecord);
}

/** An operation of the identity on its contacts: the database handle it runs on, and its time. */
export interface ContactCall {
  db: Queryable;
  identity: Identity;
  now: number;
}

export async function contactOf({ db, identity }: ContactCall, fingerprint: string): Promise<ContactRow> {
  const row = await getContact(db, identity.id, fingerprint);
  if (!row) throw new ServiceError('not_found', 'no such contact');
  return row;
}

/** A refusal of the rules, as the service answers it. */
export function refused(refusal: Refusal<ServiceError['code']>): ServiceError {
  return new ServiceError(refusal.refused, refusal.message);
}

export function check(refusal: Refusal<ServiceError['code']> | undefined): void {
  if (refusal) throw refused(refusal);
}

/**
 * Re-reads the identity's row for `fingerprint` locked, in the caller's transaction, applies `rule` and
 * writes its transition: the row (or its removal), then its events stamped `now`, whose data names the
 * contact by fingerprint only. A refusal writes nothing and is returned. An event the workspace's
 * delivery backlog refuses (429, unless `backlog` says the caller checked already) is thrown, and the
 * caller's transaction, rolled back, leaves the row as it was.
 */
export async function applyLocked<C extends string, A>(
  tx: Queryable,
  identity: Identity,
  fingerprint: string,
  now: number,
  rule: (state: ContactState) => Outcome<C, A>,
  backlog: Backlog = 'refuse',
): Promise<Outcome<C, A>> {
  const before = (await getContact(tx, identity.id, fingerprint, true)) ?? null;
  const after = rule(before);
  if (isRefusal(after)) return after;
  if (after.state !== before) {
    if (after.state) await saveContact(tx, after.state);
    else if (before) await deleteContact(tx, before.identity_id, before.fingerprint);
  }
  for (const type of after.events) {
    await insertEvent(
      tx,
      {
        workspaceId: identity.workspace_id,
        identity: identity.slug,
        type,
        data: { contact: fingerprint },
        createdAt: now,
      },
      backlog,
    );
  }
  return after;
}
