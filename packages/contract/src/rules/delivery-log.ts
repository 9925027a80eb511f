/**
 * How far back a filter by status or event type looks: the newest attempts of an endpoint, up to this
 * many. A filtered read then costs at most this many rows whatever the log's length (the newest hundred
 * that match are answered); a filter by event id is a lookup and finds its attempt at any age.
 */
export const DELIVERY_FILTER_WINDOW = 10_000;

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
