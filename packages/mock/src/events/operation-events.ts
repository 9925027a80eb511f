import type { CatalogueEvent } from '@svc-kit/contract';
import type { EventType } from '@svc-kit/webhooks';
import { parseSandboxCard } from '../cards/sandbox-card.js';
import type { SandboxStore } from '../state/model.js';

/**
 * An event an operation (or a test) causes, before it gets its id and time. A union over the catalogue,
 * not a function generic in the type: a type held in a wider variable is then checked against each type
 * it may be, so no type's data passes for another's, and no member outside the catalogue compiles.
 */
export type NewEvent = CatalogueEvent & { identity: string };

export type ContactEventType = Extract<EventType, `contact.${string}`>;
type IntegrationEventType = Extract<EventType, `integration.${string}`>;

/** What the events of a contact operation depend on, read before and after the operation. */
interface ContactSnapshot {
  status: string;
  preset: string;
  permissions: string;
  petname: string;
  trust: string;
}

function contactSnapshot(store: SandboxStore, slug: string, fingerprint: string): ContactSnapshot | null {
  const record = store.identities.get(slug)?.contacts.get(fingerprint)?.record;
  if (!record) return null;
  return {
    status: record.status,
    preset: record.preset,
    permissions: record.permissions.join('\n'),
    petname: record.petname,
    trust: record.trust_flag,
  };
}

/** The call as the sandbox's behaviours get it, seen untyped (the pipeline has validated it). */
export interface ObservedCall {
  params: unknown;
  body: unknown;
  store: SandboxStore;
}

/**
 * Which event an operation's change records, decided as the service's contact rules and integration
 * routes decide it: from the contact's state before and after (a repeat that changes nothing records
 * nothing), and for integrations from the answer. Read the state before the operation runs; the returned
 * function gives the events once it has succeeded. `undefined`: the operation records no event.
 */
export function observeOperation(
  operationId: string,
  call: ObservedCall,
): ((answer: unknown) => NewEvent[]) | undefined {
  const params = (call.params ?? {}) as Record<string, string>;
  const body = (call.body ?? {}) as Record<string, unknown>;
  const slug = params.slug ?? '';
  const contactEvent = (type: ContactEventType, fingerprint: string): NewEvent => ({
    type,
    identity: slug,
    data: { contact: fingerprint },
  });
  const integrationEvent = (event: CatalogueEvent<IntegrationEventType>): NewEvent => ({
    ...event,
    identity: slug,
  });

  const contactChange = (
    fingerprint: string | undefined,
    decide: (before: ContactSnapshot | null, after: ContactSnapshot | null) => ContactEventType | undefined,
  ) => {
    if (fingerprint === undefined) return undefined;
    const before = contactSnapshot(call.store, slug, fingerprint);
    return () => {
      const type = decide(before, contactSnapshot(call.store, slug, fingerprint));
      return type === undefined ? [] : [contactEvent(type, fingerprint)];
    };
  };
  const fingerprint = params.fingerprint;
  // The integration routes' path always names one; the fallback only satisfies the type.
  const name = params.name ?? '';

  switch (operationId) {
    case 'requestContact': {
      // Our side moved: to `active` (they had asked us, or accept at once), or to `pending_out`.
      const card = typeof body.card === 'string' ? parseSandboxCard(body.card) : undefined;
      return contactChange(card?.fingerprint, (before, after) => {
        if (!after || after.status === before?.status) return undefined;
        return after.status === 'active' ? 'contact.approved' : 'contact.requested';
      });
    }
    case 'approveContact':
      return contactChange(fingerprint, () => 'contact.approved');
    case 'rejectContact':
      return contactChange(fingerprint, () => 'contact.rejected');
    case 'removeContact':
      return contactChange(fingerprint, (before) => (before ? 'contact.removed' : undefined));
    case 'blockContact':
      return contactChange(fingerprint, (before) =>
        before && before.status !== 'blocked' ? 'contact.blocked' : undefined,
      );
    case 'unblockContact':
      return contactChange(fingerprint, () => 'contact.unblocked');
    case 'updateContact':
      return contactChange(fingerprint, (before, after) =>
        before && after && (before.preset !== after.preset || before.permissions !== after.permissions)
          ? 'contact.updated'
          : undefined,
      );
    case 'setPetname':
    case 'setTrust':
      return contactChange(fingerprint, (before, after) =>
        before && after && (before.petname !== after.petname || before.trust !== after.trust)
          ? 'contact.updated'
          : undefined,
      );
    case 'createIntegration':
      return (answer) => {
        const created = (answer as { integration: { slug: string } }).integration;
        return [integrationEvent({ type: 'integration.created', data: { integration: created.slug } })];
      };
    case 'setExposure':
      return (answer) => [
        integrationEvent({
          type: 'integration.exposure_updated',
          data: { integration: name, version: (answer as { version: number }).version },
        }),
      ];
    case 'deleteIntegration':
      return () => [integrationEvent({ type: 'integration.deleted', data: { integration: name } })];
    default:
      return undefined;
  }
}
