import { type Contact, DEFAULT_PRESET, DEFAULT_TRUST, permissionsOfPreset } from '@svc-kit/contract';
import { parseSandboxCard } from '../cards/sandbox-card.js';
import { invalid, notFound, Refusal } from '../http/refusal.js';
import { type ContactRow, identityOf, type SandboxStore, type ToolDefinition } from '../state/model.js';
import type { Behaviours } from './behaviour.js';
import { spendOutbound } from './budgets.js';

const UNREACHABLE = 'the peer did not answer';

function contactRow(store: SandboxStore, slug: string, fingerprint: string): ContactRow {
  const row = store.identities.get(slug)?.contacts.get(fingerprint);
  if (!row) throw notFound('contact');
  return row;
}

/** A row in one of the given states; any other state is "no such request / contact" for this call. */
function contactIn(
  store: SandboxStore,
  slug: string,
  fingerprint: string,
  states: readonly Contact['status'][],
  what: string,
): ContactRow {
  const row = contactRow(store, slug, fingerprint);
  if (!states.includes(row.record.status)) throw notFound(what);
  return row;
}

/** Calls a seeded tool. A tool's own failure is the peer's answer (`ok: false`), not an HTTP error. */
function callTool(tool: ToolDefinition | undefined, name: string, args: Record<string, unknown>) {
  // The shape the reference service's peers answer for a tool they do not offer.
  if (!tool) {
    return {
      ok: false,
      result: {
        error: 'unknown_tool',
        message: `this identity offers no tool named ${JSON.stringify(name)}`,
      },
    };
  }
  if (!('result' in tool)) return { ok: true, result: { tool: name, arguments: args } };
  if (typeof tool.result !== 'function') return { ok: true, result: structuredClone(tool.result) ?? null };
  try {
    const result: unknown = tool.result(structuredClone(args));
    return { ok: true, result: result === undefined ? null : result };
  } catch (error) {
    return { ok: false, result: { error: error instanceof Error ? error.message : String(error) } };
  }
}

export const contactBehaviours = {
  listContacts: ({ store, params, query }) => {
    const rows = [...(store.identities.get(params.slug)?.contacts.values() ?? [])];
    const contacts = rows
      .filter((row) => query.status === undefined || row.record.status === query.status)
      .map((row) => structuredClone(row.record));
    return { status: 200, body: { contacts } };
  },

  requestContact: ({ store, params, body, now }) => {
    const card = parseSandboxCard(body.card);
    if (!card)
      throw invalid('card is not a contact card; the mock accepts cards made with createSandboxCard');
    const identity = identityOf(store, params.slug);
    const existing = identity.contacts.get(card.fingerprint);
    const summary = {
      fingerprint: card.fingerprint,
      endpoint: card.endpoint,
      display_name: card.display_name,
    };
    if (existing?.record.status === 'blocked') {
      throw new Refusal('forbidden', 'this party is blocked; unblock it before asking again');
    }
    spendOutbound(store, params.slug, card.fingerprint, existing?.record.status, now);
    if (existing?.record.status === 'active')
      return { status: 201, body: { status: 'active', contact: summary } };
    // They already asked us: asking back is agreeing, so both sides are contacts now.
    const accepted = card.auto_accept || existing?.record.status === 'pending_in';
    const record: Contact = existing?.record ?? {
      fingerprint: card.fingerprint,
      display_name: card.display_name,
      status: 'pending_out',
      preset: DEFAULT_PRESET,
      permissions: permissionsOfPreset(DEFAULT_PRESET),
      trust_flag: DEFAULT_TRUST,
      petname: '',
      last_seen_at: now,
      created_at: now,
      endpoint: card.endpoint,
      address_claim: null,
      acceptance_unheard_since: null,
    };
    record.status = accepted ? 'active' : 'pending_out';
    identity.contacts.set(
      card.fingerprint,
      existing ?? { record, declined: false, reachable: true, tools: [] },
    );
    return { status: 201, body: { status: accepted ? 'active' : 'pending', contact: summary } };
  },

  updateContact: ({ store, params, body }) => {
    const row = contactRow(store, params.slug, params.fingerprint);
    if (body.preset !== undefined) {
      row.record.preset = body.preset;
      row.record.permissions = permissionsOfPreset(body.preset);
    }
    if (body.permissions !== undefined) row.record.permissions = [...new Set(body.permissions)];
    return { status: 200, body: { contact: structuredClone(row.record) } };
  },

  removeContact: ({ store, params, now }) => {
    const row = contactRow(store, params.slug, params.fingerprint);
    spendOutbound(store, params.slug, params.fingerprint, row.record.status, now);
    store.identities.get(params.slug)?.contacts.delete(params.fingerprint);
    return {
      status: 200,
      body: { status: 'removed', fingerprint: params.fingerprint, notified: row.reachable },
    };
  },

  approveContact: ({ store, params, body, now }) => {
    const row = contactIn(store, params.slug, params.fingerprint, ['pending_in'], 'contact request');
    spendOutbound(store, params.slug, params.fingerprint, row.record.status, now);
    row.record.status = 'active';
    row.record.preset = body.preset;
    row.record.permissions = permissionsOfPreset(body.preset);
    row.record.acceptance_unheard_since = row.reachable ? null : now;
    return {
      status: 200,
      body: {
        status: 'approved',
        fingerprint: params.fingerprint,
        preset: body.preset,
        notified: row.reachable,
      },
    };
  },

  rejectContact: ({ store, params, now }) => {
    const row = contactIn(store, params.slug, params.fingerprint, ['pending_in'], 'contact request');
    spendOutbound(store, params.slug, params.fingerprint, row.record.status, now);
    row.record.status = 'blocked';
    row.declined = true;
    return {
      status: 200,
      body: { status: 'rejected', fingerprint: params.fingerprint, notified: row.reachable },
    };
  },

  notifyAcceptance: ({ store, params, now }) => {
    const row = contactIn(store, params.slug, params.fingerprint, ['active'], 'active contact');
    spendOutbound(store, params.slug, params.fingerprint, row.record.status, now);
    row.record.acceptance_unheard_since = row.reachable ? null : (row.record.acceptance_unheard_since ?? now);
    return {
      status: 200,
      body: {
        fingerprint: params.fingerprint,
        notified: row.reachable,
        // A peer that does not answer refused nothing: `notified: false` says the acceptance did not arrive.
        refusal: null,
      },
    };
  },

  listContactTools: ({ store, params, now }) => {
    const row = contactIn(store, params.slug, params.fingerprint, ['active'], 'active contact');
    spendOutbound(store, params.slug, params.fingerprint, row.record.status, now);
    const tools = row.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: structuredClone(tool.input_schema),
    }));
    return { status: 200, body: { tools } };
  },

  callContactTool: ({ store, params, body, now }) => {
    const row = contactIn(store, params.slug, params.fingerprint, ['active'], 'active contact');
    spendOutbound(store, params.slug, params.fingerprint, row.record.status, now);
    const tool = row.tools.find((candidate) => candidate.name === body.tool);
    return { status: 200, body: callTool(tool, body.tool, body.arguments ?? {}) };
  },

  blockContact: ({ store, params }) => {
    const row = contactRow(store, params.slug, params.fingerprint);
    if (row.record.status !== 'blocked') {
      // Only a former contact comes back on unblock; a blocked request is forgotten like a declined one.
      row.declined = row.record.status !== 'active';
      row.record.status = 'blocked';
    }
    return { status: 200, body: { status: 'blocked', fingerprint: params.fingerprint } };
  },

  unblockContact: ({ store, params }) => {
    const row = contactIn(store, params.slug, params.fingerprint, ['blocked'], 'blocked contact');
    if (row.declined) {
      store.identities.get(params.slug)?.contacts.delete(params.fingerprint);
      return { status: 200, body: { status: 'forgotten', fingerprint: params.fingerprint } };
    }
    row.record.status = 'active';
    return { status: 200, body: { status: 'active', fingerprint: params.fingerprint } };
  },

  setPetname: ({ store, params, body }) => {
    contactRow(store, params.slug, params.fingerprint).record.petname = body.petname;
    return { status: 200, body: null };
  },

  refreshContact: ({ store, params, now }) => {
    const row = contactRow(store, params.slug, params.fingerprint);
    spendOutbound(store, params.slug, params.fingerprint, row.record.status, now);
    if (!row.reachable) return { status: 200, body: { outcome: 'unreachable', why: UNREACHABLE } };
    row.record.last_seen_at = now;
    return { status: 200, body: { outcome: 'unchanged' } };
  },

  setTrust: ({ store, params, body }) => {
    contactRow(store, params.slug, params.fingerprint).record.trust_flag = body.trust;
    return { status: 200, body: null };
  },
} satisfies Pick<
  Behaviours,
  | 'listContacts'
  | 'requestContact'
  | 'updateContact'
  | 'removeContact'
  | 'approveContact'
  | 'rejectContact'
  | 'notifyAcceptance'
  | 'listContactTools'
  | 'callContactTool'
  | 'blockContact'
  | 'unblockContact'
  | 'setPetname'
  | 'refreshContact'
  | 'setTrust'
>;
