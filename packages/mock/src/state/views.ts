import type { Contact, Exposure, Integration, WebhookDelivery, WebhookEndpoint } from '@svc-kit/contract';
import type { SandboxStore } from './model.js';
import { deliveriesOf, endpointRecord, exposureOf, liveEndpoints } from './records.js';

/** The signing secrets of an endpoint, for tests that sign or verify deliveries themselves. */
export interface WebhookSecrets {
  current: string;
  /** The rotated-out secret while it is still accepted, else `null`. */
  previous: string | null;
}

/**
 * Read-only views of the sandbox, as the API would show them now. Every call returns a fresh frozen copy:
 * changing it cannot change the sandbox, and it does not change when the sandbox does.
 */
export interface SandboxStateView {
  /** Live endpoints, in creation order. */
  webhooks(): readonly WebhookEndpoint[];
  webhookSecrets(endpointId: string): WebhookSecrets | undefined;
  /** The delivery log, newest first; of one endpoint (removed ones included) or of all. */
  deliveries(endpointId?: string): readonly WebhookDelivery[];
  contacts(slug: string): readonly Contact[];
  integrations(slug: string): readonly Integration[];
  exposure(slug: string, name: string): Exposure | undefined;
  workspace(): Readonly<{ webhooksEnabled: boolean; suspended: boolean; deletionHold: boolean }>;
}

function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

export function createStateView(current: () => SandboxStore, now: () => number): SandboxStateView {
  return {
    webhooks: () => frozen(liveEndpoints(current(), now())),
    webhookSecrets(endpointId) {
      const row = current().endpoints.get(endpointId);
      if (!row || row.removed) return undefined;
      const stillAccepted = endpointRecord(row, now()).rotating_until !== null;
      return frozen({ current: row.secret, previous: stillAccepted ? row.previousSecret : null });
    },
    deliveries: (endpointId) => frozen(deliveriesOf(current(), endpointId)),
    contacts: (slug) =>
      frozen(
        [...(current().identities.get(slug)?.contacts.values() ?? [])].map((row) =>
          structuredClone(row.record),
        ),
      ),
    integrations: (slug) =>
      frozen(
        [...(current().identities.get(slug)?.integrations.values() ?? [])].map((row) =>
          structuredClone(row.record),
        ),
      ),
    exposure(slug, name) {
      const row = current().identities.get(slug)?.integrations.get(name);
      return row ? frozen(exposureOf(row)) : undefined;
    },
    workspace: () => frozen({ ...current().workspace }),
  };
}
