import type { z } from 'zod';
import type { VerifiedCard } from '../domain/contacts/card.js';
import { recordContactEvent } from '../domain/contacts/events.js';
import { newContactRow } from '../domain/contacts/record.js';
import type { Db } from '../store/db.js';
import { type ContactRow, deleteContact, getContact, saveContact } from '../store/queries/contacts.js';
import type { KeyedIdentity } from '../store/queries/identity-keys.js';
import { MAX_PEER_BODY_BYTES, type PeerRefusalCode, type peerAnswers, type peerBodies } from './protocol.js';

/** A refusal answered to a peer as `{ error: { code, message } }`. */
export class PeerRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: PeerRefusalCode,
    message: string,
  ) {
    super(message);
  }
}

export interface InboundCall<B> {
  db: Db;
  /** Our identity the call is addressed to. */
  target: KeyedIdentity;
  /** The caller, proven by its verified card and the request signature. */
  caller: VerifiedCard;
  body: B;
  now: number;
}

type Body<V extends keyof typeof peerBodies> = z.output<(typeof peerBodies)[V]>;
type Reply<V extends keyof typeof peerAnswers> = z.output<(typeof peerAnswers)[V]>;

function owner(target: KeyedIdentity) {
  return { workspaceId: target.workspace_id, slug: target.slug };
}

/** Runs `fn` on the target's row for the caller, locked, in one transaction with its event. */
function withRow<T>(
  call: InboundCall<unknown>,
  fn: (tx: Parameters<Parameters<Db['transaction']>[0]>[0], row: ContactRow | undefined) => Promise<T>,
): Promise<T> {
  return call.db.transaction(async (tx) => {
    const row = await getContact(tx, call.target.identity_id, call.caller.fingerprint, true);
    return fn(tx, row);
  });
}

const declined = () =>
  new PeerRefusal(403, 'declined', 'this identity declined an earlier request from you; ask no more');

/**
 * The receiving side of the state machine (spec 3.2). A silent block stays silent: the blocked party gets
 * the answers it would get if nothing had happened, and nothing changes here.
 */
export const inbound = {
  async request(call: InboundCall<Body<'request'>>): Promise<Reply<'request'>> {
    return withRow(call, async (tx, row) => {
      const { now } = call;
      if (!row) {
        const fresh = newContactRow(
          { identityId: call.target.identity_id, workspaceId: call.target.workspace_id },
          call.caller,
          'pending_in',
          now,
        );
        fresh.request_note = call.body.note ?? null;
        await saveContact(tx, fresh);
        await recordContactEvent(tx, owner(call.target), 'contact.requested', fresh.fingerprint);
        return { status: 'pending' };
      }
      if (row.status === 'blocked') {
        if (row.blocked_kind === 'declined') throw declined();
        return { status: 'pending' };
      }
      if (row.status === 'pending_out') {
        // We had asked them: their request is our answer. Both sides are contacts now.
        await saveContact(tx, {
          ...row,
          status: 'active',
          acceptance_unheard_since: null,
          last_seen_at: now,
          updated_at: now,
        });
        await recordContactEvent(tx, owner(call.target), 'contact.approved', row.fingerprint);
        return { status: 'active' };
      }
      await saveContact(tx, {
        ...row,
        request_note: row.status === 'pending_in' ? (call.body.note ?? row.request_note) : row.request_note,
        last_seen_at: now,
      });
      return { status: row.status === 'active' ? 'active' : 'pending' };
    });
  },

  async accept(call: InboundCall<Body<'accept'>>): Promise<Reply<'accept'>> {
    return withRow(call, async (tx, row) => {
      if (row?.status === 'blocked') return { accepted: true };
      if (row?.status === 'pending_out') {
        await saveContact(tx, { ...row, status: 'active', last_seen_at: call.now, updated_at: call.now });
        await recordContactEvent(tx, owner(call.target), 'contact.approved', row.fingerprint);
        return { accepted: true };
      }
      if (row?.status === 'active') {
        await saveContact(tx, { ...row, last_seen_at: call.now });
        return { accepted: true };
      }
      throw new PeerRefusal(409, 'not_requested', 'this identity has no request waiting for your answer');
    });
  },

  async reject(call: InboundCall<Body<'reject'>>): Promise<Reply<'reject'>> {
    return withRow(call, async (tx, row) => {
      if (row?.status === 'pending_out') {
        await deleteContact(tx, row.identity_id, row.fingerprint);
        await recordContactEvent(tx, owner(call.target), 'contact.rejected', row.fingerprint);
      }
      return { ok: true };
    });
  },

  async remove(call: InboundCall<Body<'remove'>>): Promise<Reply<'remove'>> {
    return withRow(call, async (tx, row) => {
      // Spec 3.2: the pin goes on both sides, a silent block of a former contact included (they ended the
      // contact, so there is nothing left to block). A declined request stays: it is what keeps them from
      // knocking again.
      if (row && !(row.status === 'blocked' && row.blocked_kind === 'declined')) {
        await deleteContact(tx, row.identity_id, row.fingerprint);
        await recordContactEvent(tx, owner(call.target), 'contact.removed', row.fingerprint);
      }
      return { ok: true };
    });
  },

  async toolsList(
    call: InboundCall<Body<'tools/list'>>,
    tools?: OfferedToolsSource,
  ): Promise<Reply<'tools/list'>> {
    const row = await requireContact(call);
    // Listing shows what this contact may see: nothing without `tools:list`, and nothing to a silently
    // blocked contact (it is not told why).
    if (row.status !== 'active' || !row.permissions.includes('tools:list') || !tools) return { tools: [] };
    const listed: Reply<'tools/list'>['tools'] = [];
    // The caller refuses an answer over the protocol's size limit: list what fits.
    let size = 64;
    for (const { name, description, input_schema } of await tools.list(call.target.identity_id)) {
      const tool = { name, description, input_schema };
      size += JSON.stringify(tool).length + 1;
      if (size > MAX_PEER_BODY_BYTES) break;
      listed.push(tool);
    }
    return { tools: listed };
  },

  async toolsCall(
    call: InboundCall<Body<'tools/call'>>,
    tools?: OfferedToolsSource,
  ): Promise<Reply<'tools/call'>> {
    const row = await requireContact(call);
    const unknown = {
      ok: false,
      result: {
        error: 'unknown_tool',
        message: `this identity offers no tool named ${JSON.stringify(call.body.tool)}`,
      },
    };
    if (row.status !== 'active' || !tools) return unknown;
    const offered = await tools.list(call.target.identity_id);
    if (!offered.some((tool) => tool.name === call.body.tool)) return unknown;
    requirePermission(row, 'tools:call', 'call');
    const outcome = await tools.call(call.target.identity_id, call.body.tool, call.body.arguments, call.now);
    return outcome ?? unknown;
  },
};

async function requireContact(call: InboundCall<unknown>): Promise<ContactRow> {
  const row = await getContact(call.db, call.target.identity_id, call.caller.fingerprint);
  const silentlyBlocked = row?.status === 'blocked' && row.blocked_kind === 'contact';
  if (!row || (row.status !== 'active' && !silentlyBlocked)) {
    throw new PeerRefusal(403, 'not_a_contact', 'only a contact of this identity may use its tools');
  }
  return row;
}

/**
 * Tools are gated by the contact's switches on this side (set by its preset or one by one):
 * `tools:list` to see the offered tools, `tools:call` to call them.
 */
function requirePermission(row: ContactRow, permission: 'tools:list' | 'tools:call', what: string): void {
  if (!row.permissions.includes(permission)) {
    throw new PeerRefusal(
      403,
      'not_permitted',
      `this identity does not let you ${what} its tools (${permission} is not granted to you)`,
    );
  }
}

/** Where the offered tools come from: the identity's integrations and their exposures. */
export interface OfferedToolsSource {
  list(
    identityId: string,
  ): Promise<{ name: string; description: string; input_schema: Record<string, unknown> }[]>;
  call(
    identityId: string,
    name: string,
    args: Record<string, unknown> | undefined,
    now: number,
  ): Promise<{ ok: boolean; result: unknown } | undefined>;
}
