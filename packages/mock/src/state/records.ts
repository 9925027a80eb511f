import {
  type Exposure,
  endpointAsShown,
  type WebhookDelivery,
  type WebhookEndpoint,
} from '@svc-kit/contract';
import type { EndpointRow, IntegrationRow, SandboxStore } from './model.js';

/** The endpoint as the API shows it at `now` (the contract's rule: the rotation window closes). */
export const endpointRecord = (row: EndpointRow, now: number): WebhookEndpoint =>
  endpointAsShown(row.record, now);

/** Live endpoints in creation order. */
export function liveEndpoints(store: SandboxStore, now: number): WebhookEndpoint[] {
  return [...store.endpoints.values()].filter((row) => !row.removed).map((row) => endpointRecord(row, now));
}

/** Newest first: by `created_at`, then by id, so equal timestamps still have one order. */
export function deliveriesOf(store: SandboxStore, endpointId: string | undefined): WebhookDelivery[] {
  return store.deliveries
    .filter((delivery) => endpointId === undefined || delivery.endpoint_id === endpointId)
    .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((delivery) => ({ ...delivery }));
}

/** The exposure of an integration: its tools as the catalog, and the entries naming a tool it lacks as stale. */
export function exposureOf(row: IntegrationRow): Exposure {
  const catalog = row.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: structuredClone(tool.input_schema),
  }));
  const names = new Set(row.tools.map((tool) => tool.name));
  return {
    catalog,
    entries: structuredClone(row.entries),
    version: row.version,
    stale: row.entries.filter((entry) => !names.has(entry.tool)).map((entry) => entry.tool),
  };
}
