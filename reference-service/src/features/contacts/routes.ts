import { answer, type OperationTable } from '../../http/operations.js';
import { forIdentity } from '../shared/identity.js';
import { callTools, refreshContact, requestContact } from './calls.js';
import type { ContactsDeps } from './outbound.js';
import { contactRecord } from './record.js';
import { contactsOf } from './rows.js';
import * as service from './service.js';

/**
 * The identity's contact operations (spec 4.2): input in, answer out; the decisions are in rules.ts,
 * the work in service.ts and calls.ts. Those that call the party run in mode `own` (see operations.ts).
 */
export function contactRoutes(deps: ContactsDeps) {
  return {
    listContacts: {
      transaction: 'none',
      run: async ({ db, workspace, params, query }) => {
        const contacts = await contactsOf(db, workspace.id, params.slug, query.status);
        return answer('listContacts', 200, { contacts });
      },
    },
    requestContact: {
      transaction: 'own',
      run: forIdentity(async ({ db, body, now }, identity) => {
        const { status, card } = await requestContact({ deps, db, identity, now }, body);
        const contact = {
          fingerprint: card.fingerprint,
          endpoint: card.endpoint,
          display_name: card.display_name,
        };
        return answer('requestContact', 201, { status, contact });
      }),
    },
    updateContact: {
      transaction: 'one',
      run: forIdentity(async ({ db, params: { fingerprint }, body, now }, identity) => {
        const row = await service.updateContact({ db, identity, now }, fingerprint, body);
        return answer('updateContact', 200, { contact: contactRecord(row) });
      }),
    },
    removeContact: {
      transaction: 'own',
      run: forIdentity(async ({ db, params: { fingerprint }, now }, identity) => {
        const { notified } = await service.removeContact({ deps, db, identity, now }, fingerprint);
        return answer('removeContact', 200, { status: 'removed', fingerprint, notified });
      }),
    },
    approveContact: {
      transaction: 'own',
      run: forIdentity(async ({ db, params: { fingerprint }, body: { preset }, now }, identity) => {
        const approval = { approve: true, preset } as const;
        const { notified } = await service.answerRequest({ deps, db, identity, now }, fingerprint, approval);
        return answer('approveContact', 200, { status: 'approved', fingerprint, preset, notified });
      }),
    },
    rejectContact: {
      transaction: 'own',
      run: forIdentity(async ({ db, params: { fingerprint }, now }, identity) => {
        const rejection = { approve: false } as const;
        const { notified } = await service.answerRequest({ deps, db, identity, now }, fingerprint, rejection);
        return answer('rejectContact', 200, { status: 'rejected', fingerprint, notified });
      }),
    },
    notifyAcceptance: {
      transaction: 'own',
      run: forIdentity(async ({ db, params: { fingerprint }, now }, identity) => {
        const told = await service.notifyAcceptance({ deps, db, identity, now }, fingerprint);
        return answer('notifyAcceptance', 200, { fingerprint, ...told });
      }),
    },
    listContactTools: {
      transaction: 'own',
      run: forIdentity(async ({ db, params: { fingerprint }, now }, identity) => {
        const listed = await callTools({ deps, db, identity, now }, fingerprint, 'tools/list', {});
        return answer('listContactTools', 200, { tools: listed.tools });
      }),
    },
    callContactTool: {
      transaction: 'own',
      run: forIdentity(async ({ db, params: { fingerprint }, body, now }, identity) => {
        // Sent as given: an absent `arguments` stays absent (JSON has no undefined).
        const result = await callTools({ deps, db, identity, now }, fingerprint, 'tools/call', body);
        return answer('callContactTool', 200, { ok: result.ok, result: result.result ?? null });
      }),
    },
    blockContact: {
      // Block calls no peer: it runs in one transaction, the key's when there is one.
      transaction: 'one',
      run: forIdentity(async ({ db, params: { fingerprint }, now }, identity) => {
        await service.blockContact({ db, identity, now }, fingerprint);
        return answer('blockContact', 200, { status: 'blocked', fingerprint });
      }),
    },
    unblockContact: {
      transaction: 'one',
      run: forIdentity(async ({ db, params: { fingerprint }, now }, identity) => {
        const status = await service.unblockContact({ db, identity, now }, fingerprint);
        return answer('unblockContact', 200, { status, fingerprint });
      }),
    },
    setPetname: {
      transaction: 'one',
      run: forIdentity(async ({ db, params: { fingerprint }, body: { petname }, now }, identity) => {
        await service.labelContact({ db, identity, now }, fingerprint, { petname });
        return answer('setPetname', 200, null);
      }),
    },
    setTrust: {
      transaction: 'one',
      run: forIdentity(async ({ db, params: { fingerprint }, body: { trust }, now }, identity) => {
        await service.labelContact({ db, identity, now }, fingerprint, { trust });
        return answer('setTrust', 200, null);
      }),
    },
    refreshContact: {
      transaction: 'own',
      run: forIdentity(async ({ db, params: { fingerprint }, now }, identity) => {
        const refreshed = await refreshContact({ deps, db, identity, now }, fingerprint);
        return answer('refreshContact', 200, refreshed);
      }),
    },
  } satisfies OperationTable;
}
