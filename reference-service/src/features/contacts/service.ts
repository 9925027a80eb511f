import type { ContactPreset, ErrorCode } from '@svc-kit/contract';
import { refuseOverBacklog } from '../../store/queries/backlog.js';
import type { ContactRow } from '../../store/queries/contacts.js';
import type { Backlog } from '../../store/queries/events.js';
import { label, update } from './edits.js';
import { callParty, type PartyCall, writeHeard } from './outbound.js';
import { applyLocked, type ContactCall, check, contactOf, refused } from './rows.js';
import * as rules from './rules.js';

/*
 * The identity's own contact operations (spec 4.2). Those that call the party make the call first
 * (`callParty`), then apply the rule to the row re-read locked in a short transaction (`writeHeard`);
 * those that stay local run in the one transaction they are given.
 *
 * The workspace's delivery backlog (store/queries/backlog.ts) is looked at before the party is called:
 * past the bound the operation is refused with nothing sent or spent, and once the party has been told,
 * the outcome is written (`admitted`) whatever the backlog is by then, so that the two sides never
 * disagree because of it. Rejecting, blocking and removing are never refused by it: strangers' requests
 * can fill a workspace with many identities up to their own lower bound (PEER_BACKLOG_MS), and the owner
 * must still be able to turn them away over any bound; each ends a row that only a checked or capped door
 * creates, so they cannot be repeated to grow the backlog.
 */

/** Answers a waiting request: approve (with a preset) or reject (the party is pinned as declined). */
export async function answerRequest(
  call: PartyCall,
  fingerprint: string,
  answer: { approve: true; preset: ContactPreset } | { approve: false },
): Promise<{ notified: boolean }> {
  const { db, identity, now } = call;
  const row = await contactOf(call, fingerprint);
  check(rules.mayAnswer(row));
  if (answer.approve) await refuseOverBacklog(db, [identity.workspace_id], now);
  const outcome = await callParty(call, row, answer.approve ? 'accept' : 'reject', {});
  const notified = outcome.kind === 'ok';
  // Answered meanwhile (by a concurrent call): that answer stands, and this one changes nothing.
  await writeHeard(call, row.fingerprint, (state) =>
    answer.approve
      ? rules.approve(state, { preset: answer.preset, notified, now })
      : rules.reject(state, { now }),
  );
  return { notified };
}

/** Tells an active contact again that its request was approved (its first notice may have been lost). */
export async function notifyAcceptance(
  call: PartyCall,
  fingerprint: string,
): Promise<{ notified: boolean; refusal: string | null }> {
  const { db, identity, now } = call;
  const row = await contactOf(call, fingerprint);
  check(rules.mayUseContact(row));
  await refuseOverBacklog(db, [identity.workspace_id], now);
  const outcome = await callParty(call, row, 'accept', {});
  const notified = outcome.kind === 'ok';
  await writeHeard(call, row.fingerprint, (state) => rules.acceptanceTold(state, { notified, now }));
  return { notified, refusal: outcome.kind === 'refused' ? outcome.code : null };
}

/** Removes the contact here and tells the party (whether it heard is in `notified`). */
export async function removeContact(call: PartyCall, fingerprint: string): Promise<{ notified: boolean }> {
  const row = await contactOf(call, fingerprint);
  const outcome = await callParty(call, row, 'remove', {});
  await writeHeard(call, row.fingerprint, rules.remove);
  return { notified: outcome.kind === 'ok' };
}

const noSuchContact: rules.Refusal<ErrorCode> = { refused: 'not_found', message: 'no such contact' };

/** Runs a rule on an existing contact, locked, in the caller's transaction; a refusal is thrown. */
async function onContact<A>(
  { db, identity, now }: ContactCall,
  fingerprint: string,
  rule: (row: ContactRow) => rules.Outcome<ErrorCode, A>,
  backlog: Backlog = 'refuse',
): Promise<rules.Transition<A>> {
  const existing = (state: rules.ContactState) => (state ? rule(state) : noSuchContact);
  const outcome = await applyLocked(db, identity, fingerprint, now, existing, backlog);
  if (rules.isRefusal(outcome)) throw refused(outcome);
  return outcome;
}

/** Block is silent: nothing is sent to the party. */
export async function blockContact(call: ContactCall, fingerprint: string) {
  await onContact(call, fingerprint, (row) => rules.block(row, { now: call.now }), 'admitted');
}

export async function unblockContact(
  call: ContactCall,
  fingerprint: string,
): Promise<'active' | 'forgotten'> {
  return (await onContact(call, fingerprint, (row) => rules.unblock(row, { now: call.now }))).answer;
}

export async function updateContact(
  call: ContactCall,
  fingerprint: string,
  change: { preset?: ContactPreset | undefined; permissions?: string[] | undefined },
): Promise<ContactRow> {
  const { state } = await onContact(call, fingerprint, (row) => update(row, { ...change, now: call.now }));
  // An edit keeps the row: its state is never null.
  return state as ContactRow;
}

export async function labelContact(
  call: ContactCall,
  fingerprint: string,
  change: { petname?: string; trust?: string },
): Promise<void> {
  await onContact(call, fingerprint, (row) => label(row, { ...change, now: call.now }));
}
