import { FINGERPRINT_PATTERN } from '@svc-kit/contract';
import type { ContactEventType, NewEvent } from '../events/operation-events.js';
import type { IdSource } from '../random/ids.js';
import { loadSeed } from '../state/load-seed.js';
import type { SandboxStore } from '../state/model.js';

/**
 * The other party of a contact, acting on the sandbox's identity as its service would over the peer
 * protocol. Each call changes the identity's contact as the service's inbound rules do and records the same
 * event (its delivery follows); a call that changes nothing records nothing.
 */
export interface SandboxPeer {
  /**
   * The party asks to become a contact: a stranger's request waits (`pending_in`, `contact.requested`); if
   * the identity had asked it first, both are contacts now (`active`, `contact.approved`). Answers what
   * the party's service would be told. Throws when the identity declined this party before.
   */
  ask(details?: { display_name?: string; endpoint?: string }): 'pending' | 'active';
  /** The party approves the identity's request (`pending_out` → `active`, `contact.approved`). Throws
   * when the identity has no request waiting for this party's answer. */
  approve(): void;
  /** The party rejects the identity's request: it is forgotten (`contact.rejected`). */
  reject(): void;
  /** The party removes the contact: the row goes on this side too (`contact.removed`), except a declined
   * request, which stays so that the party cannot ask again. */
  remove(): void;
}

export interface PeerRuntime {
  store(): SandboxStore;
  ids(): IdSource;
  now(): number;
  emit(store: SandboxStore, now: number, event: NewEvent): void;
}

export function createPeer(runtime: PeerRuntime, slug: string, fingerprint: string): SandboxPeer {
  if (slug.length === 0) throw new TypeError('name the identity the peer talks to');
  if (!FINGERPRINT_PATTERN.test(fingerprint)) {
    throw new TypeError('a peer is named by its fingerprint: sha256: + 64 lowercase hex digits');
  }
  const rowOf = (store: SandboxStore) => store.identities.get(slug)?.contacts.get(fingerprint);
  const emit = (store: SandboxStore, now: number, type: ContactEventType) =>
    runtime.emit(store, now, { type, identity: slug, data: { contact: fingerprint } });
  const forget = (store: SandboxStore) => store.identities.get(slug)?.contacts.delete(fingerprint);

  return {
    ask(details = {}) {
      const store = runtime.store();
      const now = runtime.now();
      const row = rowOf(store);
      if (!row) {
        loadSeed(
          store,
          {
            identities: {
              [slug]: {
                contacts: [
                  {
                    fingerprint,
                    display_name: details.display_name ?? 'Sandbox peer',
                    status: 'pending_in',
                    ...(details.endpoint === undefined ? {} : { endpoint: details.endpoint }),
                  },
                ],
              },
            },
          },
          { ids: runtime.ids(), now },
        );
        emit(store, now, 'contact.requested');
        return 'pending';
      }
      if (row.record.status === 'blocked') {
        if (row.declined) throw new Error('this identity declined an earlier request from the peer');
        // A silent block stays silent: the party sees what it would see if nothing happened.
        return 'pending';
      }
      row.record.last_seen_at = now;
      if (row.record.status === 'pending_out') {
        row.record.status = 'active';
        row.record.acceptance_unheard_since = null;
        emit(store, now, 'contact.approved');
        return 'active';
      }
      return row.record.status === 'pending_in' ? 'pending' : 'active';
    },
    approve() {
      const store = runtime.store();
      const now = runtime.now();
      const row = rowOf(store);
      if (row?.record.status === 'blocked') return;
      if (row?.record.status === 'active') {
        row.record.last_seen_at = now;
        return;
      }
      if (row?.record.status !== 'pending_out') {
        throw new Error('the identity has no request waiting for this peer’s answer');
      }
      row.record.status = 'active';
      row.record.last_seen_at = now;
      emit(store, now, 'contact.approved');
    },
    reject() {
      const store = runtime.store();
      if (rowOf(store)?.record.status !== 'pending_out') return;
      forget(store);
      emit(store, runtime.now(), 'contact.rejected');
    },
    remove() {
      const store = runtime.store();
      const row = rowOf(store);
      if (!row || (row.record.status === 'blocked' && row.declined)) return;
      forget(store);
      emit(store, runtime.now(), 'contact.removed');
    },
  };
}
