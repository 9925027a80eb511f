import type { OutboundLimit } from './contacts.js';

/**
 * How far back a filter by status or event type looks: the newest attempts of an endpoint, up to this
 * many. A filtered read then costs at most this many rows whatever the log's length (the newest hundred
 * that match are answered); a filter by event id is a lookup and finds its attempt at any age.
 */
export const DELIVERY_FILTER_WINDOW = 10_000;

/**
 * Windowed reads of the log per workspace (our choice; the spec leaves inbound rates open): a burst of 30,
 * then two a second. Each such read may go through the whole window, and on a database with one thread
 * for every tenant a tenant asking without pause would slow every other tenant. The portal's live log
 * polls its filtered view while its tab is shown, at well under half the refill, so one person with two
 * such tabs side by side still stays below it; the burst covers clicking through the filters.
 */
export const FILTERED_LOG_READS: OutboundLimit = {
  capacity: 30,
  perMs: 2 / 1000,
  what: 'filtered delivery log reads of this workspace',
};

/** What listWebhookDeliveries may be asked to keep; absent members do not filter. */
export interface DeliveryLogFilter {
  status?: string | undefined;
  event_type?: string | undefined;
  event_id?: string | undefined;
}

/**
 * Whether a logged attempt passes the filters (the mock applies it to the window; the service's statement
 * says the same in SQL).
 */
export function passesDeliveryFilter(
  row: { status: string; event_type: string; event_id: string },
  filter: DeliveryLogFilter,
): boolean {
  return (
    (filter.status === undefined || row.status === filter.status) &&
    (filter.event_type === undefined || row.event_type === filter.event_type) &&
    (filter.event_id === undefined || row.event_id === filter.event_id)
  );
}

/**
 * Whether a read of the log goes through the window, and so spends `FILTERED_LOG_READS`: a status or an
 * event type without an event id. The unfiltered read (the newest `limit` rows) and a lookup by event id
 * read a few rows by index and spend nothing.
 */
export function readsFilterWindow(filter: DeliveryLogFilter): boolean {
  return filter.event_id === undefined && (filter.status !== undefined || filter.event_type !== undefined);
}
