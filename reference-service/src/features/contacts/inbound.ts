import type { Tool } from '@svc-kit/contract';
import type { z } from 'zod';
import { PEER_BACKLOG_MS } from '../../domain/delivery-limits.js';
import { PENDING_FULL_RETRY_SECONDS, PENDING_REQUESTS_CAP } from '../../domain/door-limits.js';
import type { VerifiedCard } from '../../peer/card.js';
import { MAX_PEER_BODY_BYTES, type peerAnswers, type peerBodies } from '../../peer/protocol.js';
import { PeerRefusal, type PeerRefusalCode } from '../../peer/refusal.js';
import type { Db, Queryable } from '../../store/db.js';
import { refuseOverBacklog } from '../../store/queries/backlog.js';
import { type ContactRow, countPendingRequestsLocked, getContact } from '../../store/queries/contacts.js';
import type { KeyedIdentity } from '../../store/queries/identity-keys.js';
import { newContactRow } from './record.js';
import { applyLocked } from './rows.js';
import * as rules from './rules.js';

export interface InboundCall<B> {
  db: Db;
  /** Our identity the call is addressed to. */
  target: KeyedIdentity;
  /** The caller, proven by its verified card and the request signature. */
  caller: VerifiedCard;
  body: B;
  now: number;
}

/** A verb's body as the peer protocol's schema reads it. */
export type PeerBody<V extends keyof typeof peerBodies> = z.output<(typeof peerBodies)[V]>;
type Reply<V extends keyof typeof peerAnswers> = z.output<(typeof peerAnswers)[V]>;

type InboundRule<A> = (state: rules.ContactState) => rules.Outcome<PeerRefusalCode, A>;

/**
 * Applies an inbound rule to the target's row for the caller, locked, in one transaction with its events.
 * The rule is made in that transaction first, so that it may depend on what is read there. A workspace
 * further behind its delivery pace than PEER_BACKLOG_MS refuses every verb first, with the peer protocol's
 * 429 and nothing written: whatever the row, so that a silently blocked party is answered as any other
 * would be, and below the bound at which the owner's own operations are refused, so that strangers alone
 * never hold the workspace there.
 */
async function transition<A>(
  call: InboundCall<unknown>,
  ruleIn: (tx: Queryable) => InboundRule<A> | Promise<InboundRule<A>>,
): Promise<A> {
  const { identity_id: id, workspace_id, slug } = call.target;
  const identity = { id, workspace_id, slug };
  // The backlog's RateLimitedError is answered as the peer protocol's 429 by peer-routes.ts.
  const outcome = await call.db.transaction(async (tx) => {
    await refuseOverBacklog(tx, [workspace_id], call.now, PEER_BACKLOG_MS);
    const rule = await ruleIn(tx);
    return applyLocked(tx, identity, call.caller.fingerprint, call.now, rule, 'admitted');
  });
  if (rules.isRefusal(outcome)) {
    const wait = outcome.refused === 'requests_full' ? PENDING_FULL_RETRY_SECONDS : undefined;
    throw new PeerRefusal(outcome.refused, outcome.message, wait);
  }
  return outcome.answer;
}

const REQUESTS_FULL =
  'this identity holds as many unanswered contact requests as it may; ask again once it has answered some';

/**
 * The receiving side of the state machine (spec 3.2): each verb is a rule of rules.ts, applied to our row
 * for the caller.
 */
export const inbound = {
  request(call: InboundCall<PeerBody<'request'>>): Promise<Reply<'request'>> {
    const owner = { identityId: call.target.identity_id, workspaceId: call.target.workspace_id };
    const fresh = newContactRow(owner, call.caller, 'pending_in', call.now);
    return transition(call, async (tx) => {
      const waiting = await countPendingRequestsLocked(tx, call.target.identity_id, PENDING_REQUESTS_CAP);
      // A party we have a row for is never refused by the cap: only a new request would add a row.
      return (state) =>
        !state && waiting >= PENDING_REQUESTS_CAP
          ? { refused: 'requests_full', message: REQUESTS_FULL }
          : rules.requestReceived(state, { fresh, note: call.body.note, now: call.now });
    });
  },

  accept(call: InboundCall<PeerBody<'accept'>>): Promise<Reply<'accept'>> {
    return transition(call, () => (state) => rules.acceptReceived(state, { now: call.now }));
  },

  reject(call: InboundCall<PeerBody<'reject'>>): Promise<Reply<'reject'>> {
    return transition(call, () => rules.rejectReceived);
  },

  remove(call: InboundCall<PeerBody<'remove'>>): Promise<Reply<'remove'>> {
    return transition(call, () => rules.removeReceived);
  },

  async toolsList(
    call: InboundCall<PeerBody<'tools/list'>>,
    tools: OfferedToolsSource,
  ): Promise<Reply<'tools/list'>> {
    const row = await requireContact(call);
    // Listing shows what this contact may see: nothing without `tools:list`, and nothing to a silently
    // blocked contact (it is not told why).
    if (row.status !== 'active' || !row.permissions.includes('tools:list')) return { tools: [] };
    const listed: Reply<'tools/list'>['tools'] = [];
    // The caller refuses an answer over the protocol's size limit: list what fits.
    let size = 64;
    for (const { name, description, input_schema } of await tools.offered(call.target.identity_id)) {
      const tool = { name, description, input_schema };
      size += JSON.stringify(tool).length + 1;
      if (size > MAX_PEER_BODY_BYTES) break;
      listed.push(tool);
    }
    return { tools: listed };
  },

  async toolsCall(
    call: InboundCall<PeerBody<'tools/call'>>,
    tools: OfferedToolsSource,
  ): Promise<Reply<'tools/call'>> {
    const row = await requireContact(call);
    const unknown = {
      ok: false,
      result: {
        error: 'unknown_tool',
        message: `this identity offers no tool named ${JSON.stringify(call.body.tool)}`,
      },
    };
    if (row.status !== 'active') return unknown;
    const offered = await tools.offered(call.target.identity_id);
    if (!offered.some((tool) => tool.name === call.body.tool)) return unknown;
    // Tools are gated by the contact's switches on this side (set by its preset or one by one).
    if (!row.permissions.includes('tools:call')) {
      const message = 'this identity does not let you call its tools (tools:call is not granted to you)';
      throw new PeerRefusal('not_permitted', message);
    }
    const outcome = await tools.call(call.target.identity_id, call.body.tool, call.body.arguments, call.now);
    return outcome ?? unknown;
  },
};

async function requireContact(call: InboundCall<unknown>): Promise<ContactRow> {
  const row = (await getContact(call.db, call.target.identity_id, call.caller.fingerprint)) ?? null;
  const refusal = rules.peerMayUseTools(row);
  if (refusal || !row) throw new PeerRefusal('not_a_contact', refusal?.message ?? 'not a contact');
  return row;
}

/** Where the offered tools come from: the identity's integrations and their exposures. */
export interface OfferedToolsSource {
  offered(identityId: string): Promise<Tool[]>;
  call(
    identityId: string,
    name: string,
    args: Record<string, unknown> | undefined,
    now: number,
  ): Promise<{ ok: boolean; result: unknown } | undefined>;
}
