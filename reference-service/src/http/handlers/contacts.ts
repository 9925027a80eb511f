import {
  isStrangerCall,
  type Operations,
  type OutboundLimit,
  outboundRefusal,
  PER_CONTACT_LIMIT,
  PER_IDENTITY_LIMIT,
  PRESET_PERMISSIONS,
  TO_STRANGERS_LIMIT,
} from '@svc-kit/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callsPeers } from '../../domain/contacts/calls-peers.js';
import { CardError, type VerifiedCard, verifyCard } from '../../domain/contacts/card.js';
import { type ContactEventType, recordContactEvent } from '../../domain/contacts/events.js';
import { RateLimitedError } from '../../domain/contacts/rate-limited.js';
import { contactRecord, newContactRow } from '../../domain/contacts/record.js';
import { ServiceError } from '../../domain/errors.js';
import { checkWebhookUrl } from '../../domain/url-policy.js';
import { callPeer, type PeerOutcome, type PeerTarget } from '../../peer/client.js';
import { type Signer, signerFor } from '../../peer/own-identity.js';
import type { PeerVerb } from '../../peer/protocol.js';
import type { PeerSettings } from '../../peer/settings.js';
import type { Queryable } from '../../store/db.js';
import {
  type ContactRow,
  deleteContact,
  getContact,
  listContactRows,
  saveContact,
} from '../../store/queries/contacts.js';
import { findIdentityBySlug } from '../../store/queries/identity-keys.js';
import { takeToken } from '../../store/queries/rate-limits.js';
import { errorBody } from '../error-body.js';
import { answer, type OperationHandler } from '../operations.js';
import type { ServiceContext } from '../service-context.js';

/** 429 with `retry_after` in the body and the same number in `Retry-After` (spec part 7). */
export function sendRateLimited(request: FastifyRequest, reply: FastifyReply, error: RateLimitedError) {
  const body = errorBody(request, 'rate_limited', error.message);
  return reply
    .code(429)
    .header('retry-after', String(error.retryAfterSeconds))
    .type('application/json')
    .send({ error: { ...body.error, retry_after: error.retryAfterSeconds } });
}

type Identity = { id: string; workspace_id: string; slug: string };
type Op<Id extends keyof Operations> = OperationHandler<Operations[Id]>;

const noSuchContact = () => new ServiceError('not_found', 'no such contact');

/** The identity's 14 contact operations (spec 4.2), with the state machine of 3.2. */
export function contactHandlers(ctx: ServiceContext, peer: PeerSettings) {
  const db = ctx.db;

  async function identityOf(workspaceId: string, slug: string, conn: Queryable = db): Promise<Identity> {
    const identity = await findIdentityBySlug(conn, workspaceId, slug);
    if (!identity) throw new ServiceError('not_found', 'no such identity');
    return identity;
  }

  async function contactOf(identity: Identity, fingerprint: string): Promise<ContactRow> {
    const row = await getContact(db, identity.id, fingerprint);
    if (!row) throw noSuchContact();
    return row;
  }

  // The endpoint in our cards is the configured public URL, never the request's Host (see public-address.ts).
  const signer = (_request: FastifyRequest, identity: Identity, now: number) =>
    signerFor(db, ctx.secretBox, identity, ctx.publicAddress.peerEndpoint, now);

  /**
   * Spends one token of each bucket that applies, all or none (one transaction): per contact, to
   * strangers when the party is not an active contact (the contract's `isStrangerCall`, given the row's
   * status before the call), then the identity aggregate. An empty bucket answers 429.
   */
  async function spend(identity: Identity, fingerprint: string, status: string | undefined, now: number) {
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

  function peerCall<V extends PeerVerb>(
    from: Signer,
    to: PeerTarget,
    verb: V,
    payload: Record<string, unknown>,
    now: number,
  ): Promise<PeerOutcome<V>> {
    return callPeer(from, to, verb, payload, {
      resolveHost: ctx.resolveHost,
      allowLocalhost: peer.allowLocalhost,
      timeoutMs: peer.timeoutMs,
      now,
    });
  }

  /** Re-reads the row locked, applies `change`, records the event, all in one transaction. */
  async function change(
    identity: Identity,
    fingerprint: string,
    apply: (row: ContactRow, tx: Queryable) => Promise<ContactEventType | undefined>,
  ): Promise<void> {
    await db.transaction(async (tx) => {
      const row = await getContact(tx, identity.id, fingerprint, true);
      if (!row) return;
      const event = await apply(row, tx);
      if (event) {
        await recordContactEvent(
          tx,
          { workspaceId: identity.workspace_id, slug: identity.slug },
          event,
          fingerprint,
        );
      }
    });
  }

  async function checkEndpoint(endpoint: string): Promise<string | undefined> {
    const verdict = await checkWebhookUrl(endpoint, {
      resolve: ctx.resolveHost,
      allowLocalhost: peer.allowLocalhost,
    });
    return verdict.ok ? undefined : verdict.reason;
  }

  const unreachable = (row: { endpoint: string }, reason: string) =>
    new ServiceError(
      'service_unavailable',
      `the contact’s service at ${row.endpoint} could not be reached (${reason}); nothing was changed`,
    );

  // The call's connection: on PostgreSQL its first statement may confirm the caller's key.
  const listContacts: Op<'listContacts'> = async ({ db: conn, workspace, params, query }) => {
    const identity = await identityOf(workspace.id, params.slug, conn);
    const rows = await listContactRows(conn, identity.id, query.status);
    return answer('listContacts', 200, { contacts: rows.map(contactRecord) });
  };

  const requestContact: Op<'requestContact'> = async ({ workspace, params, body, now, request }) => {
    const identity = await identityOf(workspace.id, params.slug);
    let card: VerifiedCard;
    try {
      card = verifyCard(body.card, now);
    } catch (error) {
      if (error instanceof CardError)
        throw new ServiceError('invalid_request', `invalid card: ${error.message}`);
      throw error;
    }
    const refused = await checkEndpoint(card.endpoint);
    if (refused)
      throw new ServiceError('invalid_request', `invalid card: its endpoint is refused: ${refused}`);
    const me = await signer(request, identity, now);
    if (card.fingerprint === me.fingerprint) {
      throw new ServiceError('invalid_request', 'this is the identity’s own card');
    }
    const existing = await getContact(db, identity.id, card.fingerprint);
    // A policy refusal, not a bad argument (spec part 7): 403.
    if (existing?.status === 'blocked') {
      throw new ServiceError('forbidden', 'this party is blocked by the identity; unblock it first');
    }
    await spend(identity, card.fingerprint, existing?.status, now);
    const outcome = await peerCall(
      me,
      card,
      'request',
      body.note === undefined ? {} : { note: body.note },
      now,
    );
    if (outcome.kind === 'unreachable') throw unreachable(card, outcome.reason);
    if (outcome.kind === 'refused') {
      // The other side's policy refused (a declined request, most often): 403, as a local block is.
      throw new ServiceError(
        'forbidden',
        outcome.code === 'declined'
          ? 'this party declined an earlier request from the identity; it cannot be asked again'
          : `the party’s service refused the request (${outcome.code}: ${outcome.message})`,
      );
    }
    const status = outcome.body.status === 'active' ? 'active' : 'pending_out';
    await db.transaction(async (tx) => {
      const row = await getContact(tx, identity.id, card.fingerprint, true);
      const owner = { workspaceId: identity.workspace_id, slug: identity.slug };
      const base =
        row ??
        newContactRow({ identityId: identity.id, workspaceId: identity.workspace_id }, card, status, now);
      await saveContact(tx, {
        ...base,
        display_name: card.display_name,
        endpoint: card.endpoint,
        public_key: card.public_key,
        card: card.text,
        card_expires_at: card.expires_at,
        status,
        last_seen_at: now,
        updated_at: now,
      });
      if (row?.status !== status) {
        await recordContactEvent(
          tx,
          owner,
          status === 'active' ? 'contact.approved' : 'contact.requested',
          card.fingerprint,
        );
      }
    });
    return answer('requestContact', 201, {
      status: outcome.body.status,
      contact: { fingerprint: card.fingerprint, endpoint: card.endpoint, display_name: card.display_name },
    });
  };

  const updateContact: Op<'updateContact'> = async ({ workspace, params, body, now }) => {
    const identity = await identityOf(workspace.id, params.slug);
    await contactOf(identity, params.fingerprint);
    await change(identity, params.fingerprint, async (row, tx) => {
      const next = { ...row };
      if (body.preset !== undefined) {
        next.preset = body.preset;
        next.permissions = [...PRESET_PERMISSIONS[body.preset]];
      }
      if (body.permissions !== undefined) next.permissions = [...new Set(body.permissions)];
      if (next.preset === row.preset && next.permissions.join('\n') === row.permissions.join('\n'))
        return undefined;
      await saveContact(tx, { ...next, updated_at: now });
      return 'contact.updated';
    });
    return answer('updateContact', 200, {
      contact: contactRecord(await contactOf(identity, params.fingerprint)),
    });
  };

  const removeContact: Op<'removeContact'> = async ({ workspace, params, now, request }) => {
    const identity = await identityOf(workspace.id, params.slug);
    const row = await contactOf(identity, params.fingerprint);
    await spend(identity, row.fingerprint, row.status, now);
    const outcome = await peerCall(await signer(request, identity, now), row, 'remove', {}, now);
    await change(identity, row.fingerprint, async (current, tx) => {
      await deleteContact(tx, current.identity_id, current.fingerprint);
      return 'contact.removed';
    });
    return answer('removeContact', 200, {
      status: 'removed',
      fingerprint: row.fingerprint,
      notified: outcome.kind === 'ok',
    });
  };

  const approveContact: Op<'approveContact'> = async ({ workspace, params, body, now, request }) => {
    const identity = await identityOf(workspace.id, params.slug);
    const row = await contactOf(identity, params.fingerprint);
    if (row.status !== 'pending_in')
      throw new ServiceError('not_found', 'no request from this party is waiting');
    await spend(identity, row.fingerprint, row.status, now);
    const outcome = await peerCall(await signer(request, identity, now), row, 'accept', {}, now);
    const notified = outcome.kind === 'ok';
    await change(identity, row.fingerprint, async (current, tx) => {
      if (current.status !== 'pending_in') return undefined;
      await saveContact(tx, {
        ...current,
        status: 'active',
        preset: body.preset,
        permissions: [...PRESET_PERMISSIONS[body.preset]],
        acceptance_unheard_since: notified ? null : now,
        last_seen_at: notified ? now : current.last_seen_at,
        updated_at: now,
      });
      return 'contact.approved';
    });
    return answer('approveContact', 200, {
      status: 'approved',
      fingerprint: row.fingerprint,
      preset: body.preset,
      notified,
    });
  };

  const rejectContact: Op<'rejectContact'> = async ({ workspace, params, now, request }) => {
    const identity = await identityOf(workspace.id, params.slug);
    const row = await contactOf(identity, params.fingerprint);
    if (row.status !== 'pending_in')
      throw new ServiceError('not_found', 'no request from this party is waiting');
    await spend(identity, row.fingerprint, row.status, now);
    const outcome = await peerCall(await signer(request, identity, now), row, 'reject', {}, now);
    await change(identity, row.fingerprint, async (current, tx) => {
      if (current.status !== 'pending_in') return undefined;
      await saveContact(tx, { ...current, status: 'blocked', blocked_kind: 'declined', updated_at: now });
      return 'contact.rejected';
    });
    return answer('rejectContact', 200, {
      status: 'rejected',
      fingerprint: row.fingerprint,
      notified: outcome.kind === 'ok',
    });
  };

  const notifyAcceptance: Op<'notifyAcceptance'> = async ({ workspace, params, now, request }) => {
    const identity = await identityOf(workspace.id, params.slug);
    const row = await contactOf(identity, params.fingerprint);
    if (row.status !== 'active')
      throw new ServiceError('not_found', 'no active contact with this fingerprint');
    await spend(identity, row.fingerprint, row.status, now);
    const outcome = await peerCall(await signer(request, identity, now), row, 'accept', {}, now);
    const notified = outcome.kind === 'ok';
    await change(identity, row.fingerprint, async (current, tx) => {
      await saveContact(tx, {
        ...current,
        acceptance_unheard_since: notified ? null : (current.acceptance_unheard_since ?? now),
        last_seen_at: notified ? now : current.last_seen_at,
      });
      return undefined;
    });
    return answer('notifyAcceptance', 200, {
      fingerprint: row.fingerprint,
      notified,
      refusal: outcome.kind === 'refused' ? outcome.code : null,
    });
  };

  const toolsAnswer = <V extends 'tools/list' | 'tools/call'>(row: ContactRow, outcome: PeerOutcome<V>) => {
    if (outcome.kind === 'unreachable') throw unreachable(row, outcome.reason);
    if (outcome.kind === 'refused') {
      throw new ServiceError(
        'forbidden',
        `the contact’s service refused (${outcome.code}: ${outcome.message})`,
      );
    }
    return outcome.body;
  };

  async function activeContact(identity: Identity, fingerprint: string): Promise<ContactRow> {
    const row = await contactOf(identity, fingerprint);
    if (row.status !== 'active')
      throw new ServiceError('not_found', 'no active contact with this fingerprint');
    return row;
  }

  const listContactTools: Op<'listContactTools'> = async ({ workspace, params, now, request }) => {
    const identity = await identityOf(workspace.id, params.slug);
    const row = await activeContact(identity, params.fingerprint);
    await spend(identity, row.fingerprint, row.status, now);
    const outcome = await peerCall(await signer(request, identity, now), row, 'tools/list', {}, now);
    return answer('listContactTools', 200, { tools: toolsAnswer(row, outcome).tools });
  };

  const callContactTool: Op<'callContactTool'> = async ({ workspace, params, body, now, request }) => {
    const identity = await identityOf(workspace.id, params.slug);
    const row = await activeContact(identity, params.fingerprint);
    await spend(identity, row.fingerprint, row.status, now);
    const payload =
      body.arguments === undefined ? { tool: body.tool } : { tool: body.tool, arguments: body.arguments };
    const outcome = await peerCall(await signer(request, identity, now), row, 'tools/call', payload, now);
    const result = toolsAnswer(row, outcome);
    return answer('callContactTool', 200, { ok: result.ok, result: result.result ?? null });
  };

  const blockContact: Op<'blockContact'> = async ({ workspace, params, now }) => {
    const identity = await identityOf(workspace.id, params.slug);
    await contactOf(identity, params.fingerprint);
    // Silent: nothing is sent to the other party.
    await change(identity, params.fingerprint, async (row, tx) => {
      if (row.status === 'blocked') return undefined;
      const kind = row.status === 'active' ? 'contact' : 'declined';
      await saveContact(tx, { ...row, status: 'blocked', blocked_kind: kind, updated_at: now });
      return 'contact.blocked';
    });
    return answer('blockContact', 200, { status: 'blocked', fingerprint: params.fingerprint });
  };

  const unblockContact: Op<'unblockContact'> = async ({ workspace, params, now }) => {
    const identity = await identityOf(workspace.id, params.slug);
    const row = await contactOf(identity, params.fingerprint);
    if (row.status !== 'blocked') throw new ServiceError('not_found', 'this contact is not blocked');
    let status: 'active' | 'forgotten' = row.blocked_kind === 'contact' ? 'active' : 'forgotten';
    await change(identity, params.fingerprint, async (current, tx) => {
      if (current.status !== 'blocked') return undefined;
      if (current.blocked_kind === 'contact') {
        status = 'active';
        await saveContact(tx, { ...current, status: 'active', blocked_kind: null, updated_at: now });
      } else {
        status = 'forgotten';
        await deleteContact(tx, current.identity_id, current.fingerprint);
      }
      return 'contact.unblocked';
    });
    return answer('unblockContact', 200, { status, fingerprint: params.fingerprint });
  };

  const setPetname: Op<'setPetname'> = async ({ workspace, params, body, now }) => {
    const identity = await identityOf(workspace.id, params.slug);
    await contactOf(identity, params.fingerprint);
    await change(identity, params.fingerprint, async (row, tx) => {
      if (row.petname === body.petname) return undefined;
      await saveContact(tx, { ...row, petname: body.petname, updated_at: now });
      return 'contact.updated';
    });
    return answer('setPetname', 200, null);
  };

  const setTrust: Op<'setTrust'> = async ({ workspace, params, body, now }) => {
    const identity = await identityOf(workspace.id, params.slug);
    await contactOf(identity, params.fingerprint);
    await change(identity, params.fingerprint, async (row, tx) => {
      if (row.trust_flag === body.trust) return undefined;
      await saveContact(tx, { ...row, trust_flag: body.trust, updated_at: now });
      return 'contact.updated';
    });
    return answer('setTrust', 200, null);
  };

  const refreshContact: Op<'refreshContact'> = async ({ workspace, params, now, request }) => {
    const identity = await identityOf(workspace.id, params.slug);
    const row = await contactOf(identity, params.fingerprint);
    await spend(identity, row.fingerprint, row.status, now);
    const outcome = await peerCall(await signer(request, identity, now), row, 'card', {}, now);
    if (outcome.kind === 'unreachable')
      return answer('refreshContact', 200, { outcome: 'unreachable', why: outcome.reason });
    if (outcome.kind === 'refused') {
      return answer('refreshContact', 200, {
        outcome: 'refused',
        why: `${outcome.code}: ${outcome.message}`,
      });
    }
    let card: VerifiedCard;
    try {
      card = verifyCard(outcome.body.card, now);
    } catch (error) {
      if (!(error instanceof CardError)) throw error;
      return answer('refreshContact', 200, {
        outcome: 'refused',
        why: `the card sent back is invalid: ${error.message}`,
      });
    }
    if (card.fingerprint !== row.fingerprint) {
      return answer('refreshContact', 200, {
        outcome: 'refused',
        why: 'the card sent back is another identity’s',
      });
    }
    const endpointRefused = await checkEndpoint(card.endpoint);
    if (endpointRefused) {
      return answer('refreshContact', 200, {
        outcome: 'refused',
        why: `the new endpoint is refused: ${endpointRefused}`,
      });
    }
    const updated = card.display_name !== row.display_name || card.endpoint !== row.endpoint;
    const renewed = !updated && card.expires_at !== row.card_expires_at;
    await change(identity, row.fingerprint, async (current, tx) => {
      await saveContact(tx, {
        ...current,
        last_seen_at: now,
        ...(updated || renewed
          ? {
              display_name: card.display_name,
              endpoint: card.endpoint,
              card: card.text,
              card_expires_at: card.expires_at,
              updated_at: now,
            }
          : {}),
      });
      return updated ? 'contact.updated' : undefined;
    });
    return answer('refreshContact', 200, {
      outcome: updated ? 'updated' : renewed ? 'renewed' : 'unchanged',
    });
  };

  return {
    listContacts,
    requestContact,
    updateContact,
    removeContact,
    approveContact: callsPeers(approveContact),
    rejectContact: callsPeers(rejectContact),
    notifyAcceptance: callsPeers(notifyAcceptance),
    listContactTools,
    callContactTool,
    blockContact: callsPeers(blockContact),
    unblockContact,
    setPetname,
    refreshContact,
    setTrust,
  };
}
